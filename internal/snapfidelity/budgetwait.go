package snapfidelity

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
)

// waitBudgets waits until kube-controller-manager's disruption controller
// counted the ready pods in every PDB's status. On a pod's change the
// disruption controller syncs only one of the budgets that select it (it
// picks one, logging MultiplePodDisruptionBudgets), so the status of a
// budget overlapping another stays as of its last sync until a periodic
// resync, hours later in a real cluster: the harness touches a budget
// that stays behind for a second (an annotation), which makes the
// controller sync it, as that resync would.
func (h *Harness) waitBudgets(ctx context.Context, ready map[string][]corev1.Pod) error {
	var behind string // the last budget found behind, for the error
	poked := map[string]time.Time{}
	start := time.Now()
	err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		for _, ns := range Namespaces {
			pdbs, err := h.Client.PolicyV1().PodDisruptionBudgets(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return false, err
			}
			for i := range pdbs.Items {
				b := &pdbs.Items[i]
				healthy, err := readyMatching(b, ready[ns])
				if err != nil {
					return false, err
				}
				if b.Status.ObservedGeneration == b.Generation && b.Status.CurrentHealthy == healthy {
					continue
				}
				behind = fmt.Sprintf("budget %s/%s: observed generation %d of %d, %d healthy pods of %d", ns, b.Name,
					b.Status.ObservedGeneration, b.Generation, b.Status.CurrentHealthy, healthy)
				key := ns + "/" + b.Name
				if last, ok := poked[key]; time.Since(cmpOr(last, ok, start)) > time.Second {
					poked[key] = time.Now()
					patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, annotationPoked, poked[key].Format(time.RFC3339Nano))
					if _, err := h.Client.PolicyV1().PodDisruptionBudgets(ns).Patch(ctx, b.Name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
						return false, fmt.Errorf("touching budget %s: %w", key, err)
					}
				}
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for the disruption controller (%s): %w", behind, err)
	}
	return nil
}

// annotationPoked is the annotation waitBudgets touches a budget with.
const annotationPoked = "snapfidelity.kscale.dev/poked"

// cmpOr is t when ok, else def.
func cmpOr(t time.Time, ok bool, def time.Time) time.Time {
	if ok {
		return t
	}
	return def
}

// readyMatching counts the ready pods the budget selects.
func readyMatching(b *policyv1.PodDisruptionBudget, ready []corev1.Pod) (int32, error) {
	sel, err := metav1.LabelSelectorAsSelector(b.Spec.Selector)
	if err != nil {
		return 0, err
	}
	n := int32(0)
	for i := range ready {
		if sel.Matches(labels.Set(ready[i].Labels)) {
			n++
		}
	}
	return n, nil
}
