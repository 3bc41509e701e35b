package vpafidelity

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	vpautil "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/utils/vpa"
)

// comparePod returns the disagreements of c (updater and webhook) that are
// failures, and all of them. A case whose sides agree once the triggers of
// some of the deliberate LimitRange differences are removed (the fewest
// such, see limitRangeDeliberate) counts as those differences.
func comparePod(c *PodCase) (failures, all []Diff) {
	failures, all = rawComparePod(c)
	if len(failures) == 0 {
		return failures, all
	}
	for _, set := range limitRangeDeliberateSets {
		cur := c
		for _, d := range set {
			cur = d.neutralize(cur)
		}
		if f, _ := rawComparePod(cur); len(f) == 0 {
			all = slices.DeleteFunc(all, func(d Diff) bool { return !counted(d) })
			for _, d := range set {
				all = append(all, Diff{Kind: Deliberate + d.name, Detail: "agrees without its trigger"})
			}
			return nil, all
		}
	}
	return failures, all
}

// rawComparePod is comparePod without the deliberate LimitRange differences.
func rawComparePod(c *PodCase) (failures, all []Diff) {
	all = append(CompareUpdater(c), CompareWebhook(c)...)
	return slices.DeleteFunc(slices.Clone(all), counted), all
}

// limitRangeDeliberate is a documented deliberate difference of the
// LimitRange path (docs/vpa.md) with the change of a case that removes its
// trigger on both sides.
type limitRangeDeliberate struct {
	name       string
	neutralize func(*PodCase) *PodCase
}

var (
	offUntouched = limitRangeDeliberate{"limitrange-off-containers-untouched", withoutOffContainers}
	noFill       = limitRangeDeliberate{"limitrange-no-uncontrolled-fill", withAllResourcesRecommended}
	roundUp      = limitRangeDeliberate{"limitrange-pod-min-memory-rounds-up", withoutPodMemoryMin}
)

// limitRangeDeliberateSets lists the combinations tried, fewest first.
var limitRangeDeliberateSets = [][]limitRangeDeliberate{
	{offUntouched}, {noFill}, {roundUp},
	{offUntouched, noFill}, {offUntouched, roundUp}, {noFill, roundUp},
	{offUntouched, noFill, roundUp},
}

// withoutOffContainers returns c without the containers whose policy
// switches them off, or without its LimitRange when every container is
// off (upstream then processes requests kscale leaves alone).
func withoutOffContainers(c *PodCase) *PodCase {
	n := *c
	n.Pod = c.Pod.DeepCopy()
	n.Pod.Spec.Containers = slices.DeleteFunc(n.Pod.Spec.Containers, func(ct corev1.Container) bool {
		p := vpautil.GetContainerResourcePolicy(ct.Name, c.VPA.Spec.ResourcePolicy)
		return p != nil && p.Mode != nil && *p.Mode == vpav1.ContainerScalingModeOff
	})
	if len(n.Pod.Spec.Containers) == 0 {
		return withLimitTypes(c)
	}
	return &n
}

// withAllResourcesRecommended returns c with every recommendation listing
// CPU and memory in each of its fields, every policy controlling both and
// every container without a recommendation requesting both (its limit, or
// 100m and 100Mi), so upstream's pod fitting has no missing value to write
// into.
func withAllResourcesRecommended(c *PodCase) *PodCase {
	n := *c
	n.VPA = c.VPA.DeepCopy()
	n.Pod = c.Pod.DeepCopy()
	fill := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("100Mi")}
	for i := range n.Pod.Spec.Containers {
		ct := &n.Pod.Spec.Containers[i]
		if vpautil.GetRecommendationForContainer(ct.Name, c.VPA.Status.Recommendation) != nil {
			continue
		}
		if ct.Resources.Requests == nil {
			ct.Resources.Requests = corev1.ResourceList{}
		}
		for name, q := range fill {
			if _, ok := ct.Resources.Requests[name]; ok {
				continue
			}
			if l, ok := ct.Resources.Limits[name]; ok {
				q = l
			}
			ct.Resources.Requests[name] = q.DeepCopy()
		}
	}
	for i := range n.VPA.Spec.ResourcePolicy.ContainerPolicies {
		n.VPA.Spec.ResourcePolicy.ContainerPolicies[i].ControlledResources = nil
	}
	if n.VPA.Status.Recommendation == nil {
		return &n
	}
	for i := range n.VPA.Status.Recommendation.ContainerRecommendations {
		r := &n.VPA.Status.Recommendation.ContainerRecommendations[i]
		for _, l := range []corev1.ResourceList{r.Target, r.LowerBound, r.UpperBound} {
			for name, q := range fill {
				if _, ok := l[name]; !ok && l != nil {
					l[name] = q.DeepCopy()
				}
			}
		}
	}
	return &n
}

// withoutPodMemoryMin returns c without the memory Min of its pod items.
func withoutPodMemoryMin(c *PodCase) *PodCase {
	n := *c
	lr := c.LimitRange.DeepCopy()
	for i := range lr.Spec.Limits {
		if lr.Spec.Limits[i].Type == corev1.LimitTypePod {
			delete(lr.Spec.Limits[i].Min, corev1.ResourceMemory)
		}
	}
	n.LimitRange = lr
	return &n
}

// withLimitTypes returns a copy of c whose LimitRange keeps only the items
// of the given types.
func withLimitTypes(c *PodCase, types ...corev1.LimitType) *PodCase {
	n := *c
	lr := c.LimitRange.DeepCopy()
	lr.Spec.Limits = slices.DeleteFunc(lr.Spec.Limits, func(i corev1.LimitRangeItem) bool { return !slices.Contains(types, i.Type) })
	n.LimitRange = lr
	return &n
}

// limitRangeFamily names the part of the LimitRange path a disagreement ds
// of c comes from (docs/vpa.md, open findings), or "" when the sides also
// disagree without a LimitRange: the sides agree once the items of one
// type are left out (pod-limitrange: the pod items alone
// disagree; container-limitrange: the container items alone), or only
// without both.
func limitRangeFamily(c *PodCase, ds []Diff) string {
	if len(c.LimitRange.Spec.Limits) == 0 {
		return ""
	}
	if f, _ := comparePod(withLimitTypes(c)); len(f) > 0 {
		return ""
	}
	podOnly, _ := comparePod(withLimitTypes(c, corev1.LimitTypePod))
	containerOnly, _ := comparePod(withLimitTypes(c, corev1.LimitTypeContainer))
	switch {
	case len(containerOnly) == 0 && len(podOnly) > 0:
		return "pod-limitrange"
	case len(podOnly) == 0 && len(containerOnly) > 0:
		return "container-limitrange"
	default:
		return "pod-and-container-limitrange"
	}
}
