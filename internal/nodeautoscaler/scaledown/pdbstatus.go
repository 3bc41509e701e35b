package scaledown

import (
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// ControllerScale finds a pod's controller the way the disruption
// controller's finders do: key names the controller (the pods of one
// controller count its replicas once), replicas is its desired replicas.
// managed is false for a pod without a controller, which no controller
// counts; found is false when the controller does not exist or has no
// scale (a Job, a DaemonSet, a custom resource without the scale
// subresource).
type ControllerScale func(p *corev1.Pod) (key string, replicas int, managed, found bool)

// DisruptionsAllowed is BudgetStatus's disruptionsAllowed for a world
// that knows only how many pods the budget's controllers want, expected
// (0: the selected pods that have not finished), as if one controller
// owned every selected pod (package memcluster).
func DisruptionsAllowed(pdb *policyv1.PodDisruptionBudget, pods []*corev1.Pod, expected int) int32 {
	if expected <= 0 {
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		for _, p := range pods {
			if err == nil && p.Namespace == pdb.Namespace && sel.Matches(labels.Set(p.Labels)) &&
				p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
				expected++
			}
		}
	}
	one := func(*corev1.Pod) (string, int, bool, bool) { return "", expected, true, true }
	return BudgetStatus(pdb, pods, one).DisruptionsAllowed
}

// BudgetStatus computes a PodDisruptionBudget's status the way the
// disruption controller does, for worlds without one (the offline
// simulation, unit tests). pods may hold any pods; the budget selects
// those of its namespace its selector matches (a budget whose selector
// does not parse selects none). Healthy pods are the selected ones that
// are Ready and not terminating. The expected pods are, for
// maxUnavailable and a percentage minAvailable, the desired replicas of
// the selected pods' controllers added up (pods without a controller
// count nothing), and for an int minAvailable the selected pods. When
// the expected count needs a controller that scale does not find, the
// disruption controller fails to sync the budget and its status stays
// as created: the zero status, allowing no disruption. A budget with
// neither field expects no pod and so allows no disruption either.
func BudgetStatus(pdb *policyv1.PodDisruptionBudget, pods []*corev1.Pod, scale ControllerScale) policyv1.PodDisruptionBudgetStatus {
	sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	if err != nil || pdb.Spec.Selector == nil {
		sel = labels.Nothing()
	}
	var selected []*corev1.Pod
	healthy := int32(0)
	for _, p := range pods {
		if p.Namespace != pdb.Namespace || !sel.Matches(labels.Set(p.Labels)) {
			continue
		}
		selected = append(selected, p)
		if p.DeletionTimestamp == nil && PodReady(p) {
			healthy++
		}
	}
	expected, desired, ok := expectedPods(pdb, selected, scale)
	if !ok {
		return policyv1.PodDisruptionBudgetStatus{}
	}
	allowed := healthy - desired
	if expected <= 0 || allowed < 0 {
		allowed = 0
	}
	return policyv1.PodDisruptionBudgetStatus{CurrentHealthy: healthy, DesiredHealthy: desired, ExpectedPods: expected,
		DisruptionsAllowed: allowed}
}

// expectedPods returns the budget's expected and desired healthy pods;
// ok is false when a controller or a value cannot be resolved.
func expectedPods(pdb *policyv1.PodDisruptionBudget, selected []*corev1.Pod, scale ControllerScale) (expected, desired int32, ok bool) {
	switch v := pdb.Spec.MinAvailable; {
	case pdb.Spec.MaxUnavailable != nil:
		expected, ok = controllersScale(selected, scale)
		if !ok {
			return 0, 0, false
		}
		n, err := intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MaxUnavailable, int(expected), true)
		if err != nil {
			return 0, 0, false
		}
		return expected, max(0, expected-int32(n)), true
	case v != nil && v.Type == intstr.Int:
		return int32(len(selected)), v.IntVal, true
	case v != nil:
		expected, ok = controllersScale(selected, scale)
		if !ok {
			return 0, 0, false
		}
		n, err := intstr.GetScaledValueFromIntOrPercent(v, int(expected), true)
		if err != nil {
			return 0, 0, false
		}
		return expected, int32(n), true
	}
	return 0, 0, true
}

// controllersScale adds up the desired replicas of the pods' controllers,
// each once; ok is false when one is not found.
func controllersScale(pods []*corev1.Pod, scale ControllerScale) (int32, bool) {
	seen := map[string]bool{}
	total := int32(0)
	for _, p := range pods {
		key, replicas, managed, found := scale(p)
		switch {
		case !managed:
			continue
		case !found:
			return 0, false
		case !seen[key]:
			seen[key] = true
			total += int32(replicas)
		}
	}
	return total, true
}

// PodReady reports whether the pod's Ready condition is True: a healthy
// pod for the disruption controller and the eviction API.
func PodReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
