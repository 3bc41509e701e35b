// Package boost is the CPU startup boost (VPA feature gate CPUStartupBoost):
// the admission webhook raises a container's CPU when its pod is created,
// and the updater scales it back in place once the pod has been Ready for
// the boost's duration. The package is pure decision code shared by both.
package boost

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"

	"github.com/kscale/kscale/internal/vpa/recommendation"
)

// AnnotationPrefix starts the pod annotation the webhook sets for each
// boosted container (upstream's name): AnnotationPrefix + container name,
// holding the container's resources before the boost as JSON.
const AnnotationPrefix = "vpaCpuStartupBoost/"

// AnnotationKey returns the boost annotation of a container.
func AnnotationKey(container string) string { return AnnotationPrefix + container }

// Has reports whether the VPA sets a startup boost, for the pod or a
// container.
func Has(vpa *vpav1.VerticalPodAutoscaler) bool {
	if vpa.Spec.StartupBoost != nil {
		return true
	}
	if rp := vpa.Spec.ResourcePolicy; rp != nil {
		for i := range rp.ContainerPolicies {
			if rp.ContainerPolicies[i].StartupBoost != nil {
				return true
			}
		}
	}
	return false
}

// For returns the CPU boost of a container: its container policy's (the
// entry with its name, else "*"), else the VPA's; nil when none is set.
func For(vpa *vpav1.VerticalPodAutoscaler, container string) *vpav1.GenericStartupBoost {
	b := vpa.Spec.StartupBoost
	if cp := recommendation.ContainerPolicy(vpa.Spec.ResourcePolicy, container); cp != nil && cp.StartupBoost != nil {
		b = cp.StartupBoost
	}
	if b == nil {
		return nil
	}
	return b.CPU
}

// Original is a container's cpu and memory requests and limits before its
// boost: the value of its boost annotation.
type Original struct {
	// Requests are the cpu and memory requests.
	Requests corev1.ResourceList `json:"requests"`
	// Limits are the cpu and memory limits.
	Limits corev1.ResourceList `json:"limits"`
}

// OriginalOf returns the container's cpu and memory requests and limits.
func OriginalOf(res corev1.ResourceRequirements) Original {
	o := Original{Requests: corev1.ResourceList{}, Limits: corev1.ResourceList{}}
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		if q, ok := res.Requests[name]; ok {
			o.Requests[name] = q
		}
		if q, ok := res.Limits[name]; ok {
			o.Limits[name] = q
		}
	}
	return o
}

// Encode returns the annotation value.
func (o Original) Encode() (string, error) {
	raw, err := json.Marshal(o)
	if err != nil {
		return "", fmt.Errorf("encoding the original resources: %w", err)
	}
	return string(raw), nil
}

// ParseOriginal reads a container's boost annotation from the pod; nil
// when the container is not boosted.
func ParseOriginal(pod *corev1.Pod, container string) (*Original, error) {
	raw, ok := pod.Annotations[AnnotationKey(container)]
	if !ok {
		return nil, nil
	}
	var o Original
	if err := json.Unmarshal([]byte(raw), &o); err != nil {
		return nil, fmt.Errorf("annotation %s: %w", AnnotationKey(container), err)
	}
	return &o, nil
}

// errNoFactor and errNoQuantity are boosts the webhook's validation rejects.
var (
	errNoFactor   = errors.New("startupBoost.cpu.factor: required (and at least 1) when type is Factor")
	errNoQuantity = errors.New("startupBoost.cpu.quantity: required when type is Quantity")
)

// CPU returns the boosted CPU request for a base request: base × factor
// for type Factor (the default), base + quantity for type Quantity, at most
// maxBoost when maxBoost is not zero (--max-allowed-cpu-boost).
func CPU(base resource.Quantity, b *vpav1.GenericStartupBoost, maxBoost resource.Quantity) (resource.Quantity, error) {
	var milli int64
	switch b.Type {
	case vpav1.FactorStartupBoostType, "":
		if b.Factor == nil || *b.Factor < 1 {
			return resource.Quantity{}, errNoFactor
		}
		milli = saturatingMul(base.MilliValue(), int64(*b.Factor))
	case vpav1.QuantityStartupBoostType:
		if b.Quantity == nil {
			return resource.Quantity{}, errNoQuantity
		}
		milli = base.MilliValue() + b.Quantity.MilliValue()
	default:
		return resource.Quantity{}, fmt.Errorf("startupBoost.cpu.type: unsupported value %q", b.Type)
	}
	out := *resource.NewMilliQuantity(milli, resource.DecimalSI)
	if !maxBoost.IsZero() && out.Cmp(maxBoost) > 0 {
		return maxBoost.DeepCopy(), nil
	}
	return out, nil
}

func saturatingMul(a, b int64) int64 {
	var r big.Int
	r.Mul(big.NewInt(a), big.NewInt(b))
	if !r.IsInt64() {
		return math.MaxInt64
	}
	return r.Int64()
}

// Expired returns the boost annotations of the pod whose boost is over: the
// pod has been Ready (since its Ready condition's last transition) for
// longer than the container's durationSeconds (0: at once). A pod that is
// not Ready keeps every boost.
func Expired(pod *corev1.Pod, vpa *vpav1.VerticalPodAutoscaler, now time.Time) []string {
	var ready *corev1.PodCondition
	for i := range pod.Status.Conditions {
		if c := &pod.Status.Conditions[i]; c.Type == corev1.PodReady {
			ready = c
		}
	}
	if ready == nil || ready.Status != corev1.ConditionTrue {
		return nil
	}
	var out []string
	for key := range pod.Annotations {
		name, ok := strings.CutPrefix(key, AnnotationPrefix)
		if !ok {
			continue
		}
		if d := duration(vpa, name); d == 0 || now.Sub(ready.LastTransitionTime.Time) > d {
			out = append(out, key)
		}
	}
	return out
}

// duration is the container's boost duration: its container policy's,
// else the VPA's, else 0.
func duration(vpa *vpav1.VerticalPodAutoscaler, container string) time.Duration {
	var s int32
	if b := vpa.Spec.StartupBoost; b != nil && b.CPU != nil && b.CPU.DurationSeconds != nil {
		s = *b.CPU.DurationSeconds
	}
	if cp := recommendation.ContainerPolicy(vpa.Spec.ResourcePolicy, container); cp != nil && cp.StartupBoost != nil &&
		cp.StartupBoost.CPU != nil && cp.StartupBoost.CPU.DurationSeconds != nil {
		s = *cp.StartupBoost.CPU.DurationSeconds
	}
	return time.Duration(s) * time.Second
}

// InProgress reports whether some container of the pod is boosted.
func InProgress(pod *corev1.Pod) bool {
	for key := range pod.Annotations {
		if strings.HasPrefix(key, AnnotationPrefix) {
			return true
		}
	}
	return false
}
