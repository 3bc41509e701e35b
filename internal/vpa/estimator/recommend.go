package estimator

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"

	"github.com/kscale/kscale/internal/vpa/model"
)

// IntegerCPUAnnotationPrefix starts the VPA annotation that opts a
// container into whole-core CPU: <prefix><container>_integerCPU=true.
const IntegerCPUAnnotationPrefix = "vpa-post-processor.kubernetes.io/"

// Recommend builds the VPA's recommendation from its per-container history.
// Containers whose policy mode is Off get none and do not count for the
// pod-minimum split. Entries are sorted by container name. The policy must
// have passed ValidatePolicy.
func (e *Estimator) Recommend(vpa *vpav1.VerticalPodAutoscaler, states map[string]*model.AggregateContainerState) *vpav1.RecommendedPodResources {
	policy := vpa.Spec.ResourcePolicy
	names := make([]string, 0, len(states))
	for _, name := range slices.Sorted(maps.Keys(states)) {
		if !isOff(containerPolicy(policy, name)) {
			names = append(names, name)
		}
	}
	out := &vpav1.RecommendedPodResources{}
	for _, name := range names {
		cp := containerPolicy(policy, name)
		b := e.Container(states[name], len(names))
		if e.cfg.IntegerCPU && vpa.Annotations[IntegerCPUAnnotationPrefix+name+"_integerCPU"] == "true" {
			for _, a := range []*Amounts{&b.Target, &b.Lower, &b.Upper} {
				a.CPU = roundUp(a.CPU, 1000)
			}
		}
		uncapped := b.Target
		for _, a := range []*Amounts{&b.Target, &b.Lower, &b.Upper} {
			e.capToPolicy(a, cp)
		}
		out.ContainerRecommendations = append(out.ContainerRecommendations, vpav1.RecommendedContainerResources{
			ContainerName:  name,
			Target:         toList(b.Target, cp),
			LowerBound:     toList(b.Lower, cp),
			UpperBound:     toList(b.Upper, cp),
			UncappedTarget: toList(uncapped, cp),
		})
	}
	return out
}

// capToPolicy raises a to minAllowed, then lowers it to maxAllowed (the
// policy's, else the global maximum). Zero quantities mean unset.
func (e *Estimator) capToPolicy(a *Amounts, cp *vpav1.ContainerResourcePolicy) {
	var minA, maxA corev1.ResourceList
	if cp != nil {
		minA, maxA = cp.MinAllowed, cp.MaxAllowed
	}
	if q, ok := minA[corev1.ResourceCPU]; ok && !q.IsZero() {
		a.CPU = max(a.CPU, q.MilliValue())
	}
	if q, ok := minA[corev1.ResourceMemory]; ok && !q.IsZero() {
		a.Memory = max(a.Memory, q.Value())
	}
	maxCPU, maxMem := e.cfg.MaxAllowedCPUMillicores, e.cfg.MaxAllowedMemoryBytes
	if q, ok := maxA[corev1.ResourceCPU]; ok && !q.IsZero() {
		maxCPU = q.MilliValue()
	}
	if q, ok := maxA[corev1.ResourceMemory]; ok && !q.IsZero() {
		maxMem = q.Value()
	}
	if maxCPU > 0 {
		a.CPU = min(a.CPU, maxCPU)
	}
	if maxMem > 0 {
		a.Memory = min(a.Memory, maxMem)
	}
}

// toList converts amounts to a ResourceList of the controlled resources.
func toList(a Amounts, cp *vpav1.ContainerResourcePolicy) corev1.ResourceList {
	l := make(corev1.ResourceList, 2)
	if controlled(cp, corev1.ResourceCPU) {
		l[corev1.ResourceCPU] = *resource.NewMilliQuantity(a.CPU, resource.DecimalSI)
	}
	if controlled(cp, corev1.ResourceMemory) {
		l[corev1.ResourceMemory] = *resource.NewQuantity(a.Memory, resource.BinarySI)
	}
	return l
}
