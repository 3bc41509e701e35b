package actuation

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kscale/kscale/internal/nodeautoscaler/scaledown"
)

// ErrSeveralBudgets is the eviction API's answer (500) for a pod that
// several PodDisruptionBudgets select: it evicts no such pod. The drain
// retries it as any failed eviction.
var ErrSeveralBudgets = errors.New("the pod has more than one PodDisruptionBudget, which the eviction API does not support")

// CheckEviction decides an eviction the way the eviction API does, for
// worlds without an API server (the offline simulation): a pod that is
// pending, finished or terminating is evicted without looking at
// budgets; a pod several budgets of its namespace select is refused with
// ErrSeveralBudgets; a pod that is not Ready is evicted when its budget
// has unhealthyPodEvictionPolicy AlwaysAllow or is healthy now (current
// healthy pods at least the desired ones, which are more than 0);
// otherwise a budget allowing no disruption refuses it with
// ErrEvictionRefused. The budgets' status must be current.
func CheckEviction(pod *corev1.Pod, pdbs []*policyv1.PodDisruptionBudget) error {
	if pod.Status.Phase == corev1.PodPending || pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed ||
		pod.DeletionTimestamp != nil {
		return nil
	}
	var pdb *policyv1.PodDisruptionBudget
	for _, b := range pdbs {
		sel, err := metav1.LabelSelectorAsSelector(b.Spec.Selector)
		if err != nil || b.Spec.Selector == nil || b.Namespace != pod.Namespace || !sel.Matches(labels.Set(pod.Labels)) {
			continue
		}
		if pdb != nil {
			return fmt.Errorf("evicting pod %s/%s: budgets %s and %s: %w", pod.Namespace, pod.Name, pdb.Name, b.Name, ErrSeveralBudgets)
		}
		pdb = b
	}
	switch {
	case pdb == nil:
		return nil
	case !scaledown.PodReady(pod) && pdb.Spec.UnhealthyPodEvictionPolicy != nil && *pdb.Spec.UnhealthyPodEvictionPolicy == policyv1.AlwaysAllow:
		return nil
	case !scaledown.PodReady(pod) && pdb.Status.CurrentHealthy >= pdb.Status.DesiredHealthy && pdb.Status.DesiredHealthy > 0:
		return nil
	case pdb.Status.DisruptionsAllowed < 1:
		return fmt.Errorf("evicting pod %s/%s: budget %s: %w", pod.Namespace, pod.Name, pdb.Name, ErrEvictionRefused)
	}
	return nil
}
