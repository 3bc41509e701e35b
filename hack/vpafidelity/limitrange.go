package vpafidelity

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// comparePod returns the disagreements of c (updater and webhook) that are
// failures, and all of them.
func comparePod(c *PodCase) (failures, all []Diff) {
	all = append(CompareUpdater(c), CompareWebhook(c)...)
	return slices.DeleteFunc(slices.Clone(all), counted), all
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
