package scaledown

import (
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// DisruptionsAllowed computes a PodDisruptionBudget's
// status.disruptionsAllowed the way the disruption controller does, for
// worlds without one (the offline simulation, unit tests): healthy pods
// (selected, not finished, not terminating, Ready) minus the desired
// healthy count, never below 0. expected is the number of pods the owning
// controllers want; 0 means the number of selected pods. A budget with
// neither minAvailable nor maxUnavailable is treated as minAvailable 1.
func DisruptionsAllowed(pdb *policyv1.PodDisruptionBudget, pods []*corev1.Pod, expected int) int32 {
	sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	if err != nil {
		return 0
	}
	selected, healthy := 0, 0
	for _, p := range pods {
		if p.Namespace != pdb.Namespace || !sel.Matches(labels.Set(p.Labels)) ||
			p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		selected++
		if p.DeletionTimestamp == nil && isReady(p) {
			healthy++
		}
	}
	if expected <= 0 {
		expected = selected
	}
	desired := 1
	switch {
	case pdb.Spec.MinAvailable != nil:
		v, err := intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MinAvailable, expected, true)
		if err != nil {
			return 0
		}
		desired = v
	case pdb.Spec.MaxUnavailable != nil:
		v, err := intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MaxUnavailable, expected, true)
		if err != nil {
			return 0
		}
		desired = expected - v
	}
	return int32(max(0, healthy-desired))
}

func isReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
