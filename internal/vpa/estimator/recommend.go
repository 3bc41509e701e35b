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

// ContainerBounds is one container's final amounts before conversion to
// API quantities; comparing two of them tells whether a recommendation
// changed without building it.
type ContainerBounds struct {
	// Name is the container name.
	Name string
	// Bounds are the capped target and bounds.
	Bounds
	// Uncapped is the target before the policy's min/max.
	Uncapped Amounts
	// CPU and Memory say which resources the policy controls.
	CPU, Memory bool
}

// Recommend builds the VPA's recommendation from its per-container history.
// Containers whose policy mode is Off get none and do not count for the
// pod-minimum split. Entries are sorted by container name. The policy must
// have passed ValidatePolicy.
func (e *Estimator) Recommend(vpa *vpav1.VerticalPodAutoscaler, states map[string]*model.AggregateContainerState) *vpav1.RecommendedPodResources {
	return ToRecommendation(e.Compute(vpa, states))
}

// Compute is Recommend without building the API object.
func (e *Estimator) Compute(vpa *vpav1.VerticalPodAutoscaler, states map[string]*model.AggregateContainerState) []ContainerBounds {
	policy := vpa.Spec.ResourcePolicy
	names := make([]string, 0, len(states))
	for _, name := range slices.Sorted(maps.Keys(states)) {
		if !isOff(containerPolicy(policy, name)) {
			names = append(names, name)
		}
	}
	out := make([]ContainerBounds, 0, len(names))
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
		out = append(out, ContainerBounds{Name: name, Bounds: b, Uncapped: uncapped,
			CPU: controlled(cp, corev1.ResourceCPU), Memory: controlled(cp, corev1.ResourceMemory)})
	}
	return out
}

// ToRecommendation converts computed bounds into the API recommendation.
func ToRecommendation(bs []ContainerBounds) *vpav1.RecommendedPodResources {
	return ToRecommendationReusing(bs, nil, nil)
}

// ToRecommendationReusing is ToRecommendation that shares every resource
// list whose amounts equal those of prev (the bounds prevRec was built
// from). Shared lists must be treated as read-only.
func ToRecommendationReusing(bs, prev []ContainerBounds, prevRec *vpav1.RecommendedPodResources) *vpav1.RecommendedPodResources {
	out := &vpav1.RecommendedPodResources{ContainerRecommendations: make([]vpav1.RecommendedContainerResources, 0, len(bs))}
	for _, b := range bs {
		var p *ContainerBounds
		var pr *vpav1.RecommendedContainerResources
		for i := range prev {
			if prevRec != nil && i < len(prevRec.ContainerRecommendations) && prev[i].Name == b.Name && prev[i].CPU == b.CPU && prev[i].Memory == b.Memory {
				p, pr = &prev[i], &prevRec.ContainerRecommendations[i]
			}
		}
		list := func(a Amounts, pick func(*ContainerBounds) Amounts, old func(*vpav1.RecommendedContainerResources) corev1.ResourceList) corev1.ResourceList {
			if p != nil && pick(p) == a {
				return old(pr)
			}
			return toList(a, b.CPU, b.Memory)
		}
		out.ContainerRecommendations = append(out.ContainerRecommendations, vpav1.RecommendedContainerResources{
			ContainerName: b.Name,
			Target: list(b.Target, func(c *ContainerBounds) Amounts { return c.Target },
				func(r *vpav1.RecommendedContainerResources) corev1.ResourceList { return r.Target }),
			LowerBound: list(b.Lower, func(c *ContainerBounds) Amounts { return c.Lower },
				func(r *vpav1.RecommendedContainerResources) corev1.ResourceList { return r.LowerBound }),
			UpperBound: list(b.Upper, func(c *ContainerBounds) Amounts { return c.Upper },
				func(r *vpav1.RecommendedContainerResources) corev1.ResourceList { return r.UpperBound }),
			UncappedTarget: list(b.Uncapped, func(c *ContainerBounds) Amounts { return c.Uncapped },
				func(r *vpav1.RecommendedContainerResources) corev1.ResourceList { return r.UncappedTarget }),
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
func toList(a Amounts, cpu, memory bool) corev1.ResourceList {
	l := make(corev1.ResourceList, 2)
	if cpu {
		l[corev1.ResourceCPU] = *resource.NewMilliQuantity(a.CPU, resource.DecimalSI)
	}
	if memory {
		l[corev1.ResourceMemory] = *resource.NewQuantity(a.Memory, resource.BinarySI)
	}
	return l
}
