package boost

import (
	"math"
	"math/big"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"

	"github.com/kscale/kscale/internal/vpa/recommendation"
)

// Pod returns what the webhook sets on a new pod of a VPA with a startup
// boost: processed (the VPA's requests and limits per container, empty
// for a VPA in mode Off) with the CPU of every boosted container raised,
// and the boost annotation of each boosted container (key → value).
// Containers whose policy mode is Off are not boosted. maxBoost caps the
// boosted CPU when not zero.
func Pod(pod *corev1.Pod, vpa *vpav1.VerticalPodAutoscaler, processed recommendation.Result, maxBoost resource.Quantity) (recommendation.Result, map[string]string, error) {
	var out recommendation.Result
	annotations := map[string]string{}
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		want, found := processed.Find(c.Name)
		cp := recommendation.ContainerPolicy(vpa.Spec.ResourcePolicy, c.Name)
		b := For(vpa, c.Name)
		if b == nil || recommendation.IsOff(cp) {
			if found {
				out.Containers = append(out.Containers, want)
			}
			continue
		}
		if !found {
			want = recommendation.Container{Index: i, Name: c.Name}
		}
		requests, limits, err := Apply(c.Resources, want.Requests, want.Limits, recommendation.ControlledValues(cp), b, maxBoost)
		if err != nil {
			return recommendation.Result{}, nil, err
		}
		want.Requests, want.Limits = requests, limits
		out.Containers = append(out.Containers, want)
		value, err := OriginalOf(c.Resources).Encode()
		if err != nil {
			return recommendation.Result{}, nil, err
		}
		annotations[AnnotationKey(c.Name)] = value
	}
	return out, annotations, nil
}

// Apply returns a boosted container's requests and limits: the VPA's
// (requests, limits; nil when the VPA sets none) with the CPU request
// raised by the boost from the VPA's CPU request, or the container's own
// when the VPA has none. With controlledValues RequestsOnly the CPU limit
// stays and the boosted request stays 1m below it; with RequestsAndLimits
// the CPU limit keeps its proportion to the original request.
func Apply(orig corev1.ResourceRequirements, requests, limits corev1.ResourceList, controlled vpav1.ContainerControlledValues,
	b *vpav1.GenericStartupBoost, maxBoost resource.Quantity) (corev1.ResourceList, corev1.ResourceList, error) {
	base := requests[corev1.ResourceCPU]
	if base.IsZero() {
		base = orig.Requests[corev1.ResourceCPU]
	}
	boosted, err := CPU(base, b, maxBoost)
	if err != nil {
		return nil, nil, err
	}
	requests, limits = clone(requests), clone(limits)
	requests[corev1.ResourceCPU] = boosted
	origLimit, hasLimit := orig.Limits[corev1.ResourceCPU]
	switch controlled {
	case vpav1.ContainerControlledValuesRequestsOnly:
		if hasLimit && boosted.MilliValue() > origLimit.MilliValue() {
			capped := origLimit.MilliValue()
			if capped > 1 {
				capped--
			}
			requests[corev1.ResourceCPU] = *resource.NewMilliQuantity(capped, resource.DecimalSI)
		}
	case vpav1.ContainerControlledValuesRequestsAndLimits:
		if l, ok := proportionalLimit(origLimit, hasLimit, orig.Requests[corev1.ResourceCPU], boosted); ok {
			limits[corev1.ResourceCPU] = l
		}
	}
	if len(limits) == 0 {
		limits = nil
	}
	return requests, limits, nil
}

// proportionalLimit scales the original CPU limit by boosted / original
// request (the boosted request itself when the original request is unset
// or equal to the limit); no limit when the container had none.
func proportionalLimit(limit resource.Quantity, hasLimit bool, request, boosted resource.Quantity) (resource.Quantity, bool) {
	if !hasLimit || limit.IsZero() || boosted.IsZero() {
		return resource.Quantity{}, false
	}
	if request.IsZero() || request.MilliValue() == limit.MilliValue() {
		return boosted, true
	}
	var r big.Int
	r.Mul(big.NewInt(limit.MilliValue()), big.NewInt(boosted.MilliValue()))
	r.Quo(&r, big.NewInt(request.MilliValue()))
	if !r.IsInt64() {
		return *resource.NewMilliQuantity(math.MaxInt64, limit.Format), true
	}
	return *resource.NewMilliQuantity(r.Int64(), limit.Format), true
}

func clone(l corev1.ResourceList) corev1.ResourceList {
	out := make(corev1.ResourceList, len(l)+1)
	for k, v := range l {
		out[k] = v.DeepCopy()
	}
	return out
}
