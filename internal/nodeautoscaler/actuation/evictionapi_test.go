package actuation

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kscale/kscale/internal/fixture"
)

func TestCheckEviction(t *testing.T) {
	budget := func(name string, allowed, healthy, desired int32) *policyv1.PodDisruptionBudget {
		b := fixture.PDB(name, "web")
		b.Status = policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: allowed, CurrentHealthy: healthy, DesiredHealthy: desired}
		return b
	}
	ready := fixture.Pod("web", fixture.Running())
	unready := fixture.Pod("web")
	unready.Status.Phase = corev1.PodRunning
	pending := fixture.Pod("web")
	pending.Status.Phase = corev1.PodPending
	leaving := fixture.Pod("web", fixture.Running())
	leaving.DeletionTimestamp = &metav1.Time{}
	always := budget("b", 0, 0, 2)
	always.Spec.UnhealthyPodEvictionPolicy = ptr.To(policyv1.AlwaysAllow)
	otherNS := budget("b", 0, 0, 0)
	otherNS.Namespace = "elsewhere"
	tests := []struct {
		name string
		pod  *corev1.Pod
		pdbs []*policyv1.PodDisruptionBudget
		want error
	}{
		{"no budget", ready, nil, nil},
		{"allowed", ready, []*policyv1.PodDisruptionBudget{budget("b", 1, 3, 2)}, nil},
		{"refused", ready, []*policyv1.PodDisruptionBudget{budget("b", 0, 2, 2)}, ErrEvictionRefused},
		{"budget of another namespace", ready, []*policyv1.PodDisruptionBudget{otherNS}, nil},
		{"two budgets, both allowing", ready, []*policyv1.PodDisruptionBudget{budget("a", 1, 3, 2), budget("b", 1, 3, 2)}, ErrSeveralBudgets},
		{"pending pod ignores budgets", pending, []*policyv1.PodDisruptionBudget{budget("a", 0, 0, 2), budget("b", 0, 0, 2)}, nil},
		{"terminating pod ignores budgets", leaving, []*policyv1.PodDisruptionBudget{budget("b", 0, 0, 2)}, nil},
		{"unready pod, healthy budget", unready, []*policyv1.PodDisruptionBudget{budget("b", 0, 2, 2)}, nil},
		{"unready pod, unhealthy budget", unready, []*policyv1.PodDisruptionBudget{budget("b", 0, 1, 2)}, ErrEvictionRefused},
		{"unready pod, budget wanting none", unready, []*policyv1.PodDisruptionBudget{budget("b", 0, 0, 0)}, ErrEvictionRefused},
		{"unready pod, AlwaysAllow", unready, []*policyv1.PodDisruptionBudget{always}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckEviction(tc.pod, tc.pdbs)
			if (tc.want == nil) != (err == nil) || (tc.want != nil && !errors.Is(err, tc.want)) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}
