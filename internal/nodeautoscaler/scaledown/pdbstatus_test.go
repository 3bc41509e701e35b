package scaledown

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kscale/kscale/internal/fixture"
)

// statusPods are pods of two ReplicaSets (a wants 3, b wants 3 and has
// 2), a bare pod, a terminating and a finished one, and a pod of another
// namespace.
func statusPods() []*corev1.Pod {
	rs := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "ReplicaSet"}
	job := schema.GroupVersionKind{Group: "batch", Version: "v1", Kind: "Job"}
	pod := func(name string, l map[string]string, opts ...fixture.PodOption) *corev1.Pod {
		return fixture.Pod(name, append([]fixture.PodOption{fixture.WithLabels(l)}, opts...)...)
	}
	web := map[string]string{"tier": "web"}
	shard := map[string]string{"tier": "web", "shard": "x"}
	a, b := fixture.WithOwner(rs, "a", "ua"), fixture.WithOwner(rs, "b", "ub")
	leaving := pod("leaving", web, a, fixture.Running())
	leaving.DeletionTimestamp = &metav1.Time{}
	done := pod("done", map[string]string{"tier": "web", "kind": "job"}, fixture.WithOwner(job, "j", "uj"))
	done.Status.Phase = corev1.PodSucceeded
	other := pod("other", web, a, fixture.Running())
	other.Namespace = "elsewhere"
	return []*corev1.Pod{pod("a-1", shard, a, fixture.Running()), pod("a-2", shard, a, fixture.Running()), pod("a-3", web, a, fixture.Running()),
		pod("b-1", web, b, fixture.Running()), pod("b-2", web, b), pod("bare", map[string]string{"tier": "web", "app": "bare"}, fixture.Running()),
		leaving, done, other}
}

func statusScale(p *corev1.Pod) (string, int, bool, bool) {
	ref := metav1.GetControllerOf(p)
	if ref == nil {
		return "", 0, false, true
	}
	replicas, found := map[types.UID]int{"ua": 3, "ub": 3}[ref.UID]
	return string(ref.UID), replicas, true, found
}

func TestBudgetStatus(t *testing.T) {
	budget := func(sel metav1.LabelSelector, opts ...fixture.PDBOption) *policyv1.PodDisruptionBudget {
		b := fixture.PDB("b", "", opts...)
		b.Spec.Selector = &sel
		return b
	}
	webNotJob := metav1.LabelSelector{MatchLabels: map[string]string{"tier": "web"},
		MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "kind", Operator: metav1.LabelSelectorOpDoesNotExist}}}
	web := metav1.LabelSelector{MatchLabels: map[string]string{"tier": "web"}}
	neither := budget(webNotJob)
	neither.Spec.MaxUnavailable = nil
	tests := []struct {
		name string
		pdb  *policyv1.PodDisruptionBudget
		want policyv1.PodDisruptionBudgetStatus // healthy, desired, expected, allowed
	}{
		{"maxUnavailable 1 over two controllers and a bare pod", budget(webNotJob), status(5, 5, 6, 0)},
		{"maxUnavailable 50% rounds up", budget(webNotJob, fixture.MaxUnavailable(intstr.FromString("50%"))), status(5, 3, 6, 2)},
		{"minAvailable 4 counts every selected pod", budget(web, fixture.MinAvailable(intstr.FromInt32(4))), status(5, 4, 8, 1)},
		{"minAvailable 50% with a controller without scale", budget(web, fixture.MinAvailable(intstr.FromString("50%"))), status(0, 0, 0, 0)},
		{"minAvailable 50% over known controllers", budget(webNotJob, fixture.MinAvailable(intstr.FromString("50%"))), status(5, 3, 6, 2)},
		{"maxUnavailable over bare pods only", budget(metav1.LabelSelector{MatchLabels: map[string]string{"app": "bare"}}), status(1, 0, 0, 0)},
		{"part of one controller", budget(metav1.LabelSelector{MatchLabels: map[string]string{"shard": "x"}}, fixture.MinAvailable(intstr.FromInt32(1))), status(2, 1, 2, 1)},
		{"neither field", neither, status(5, 0, 0, 0)},
		{"bad selector selects nothing", budget(metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "x", Operator: "Bogus"}}}), status(0, 0, 0, 0)},
		{"everything in the namespace", budget(metav1.LabelSelector{}, fixture.MinAvailable(intstr.FromInt32(2))), status(5, 2, 8, 3)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := BudgetStatus(tc.pdb, statusPods(), statusScale); !equality.Semantic.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func status(healthy, desired, expected, allowed int32) policyv1.PodDisruptionBudgetStatus {
	return policyv1.PodDisruptionBudgetStatus{CurrentHealthy: healthy, DesiredHealthy: desired, ExpectedPods: expected, DisruptionsAllowed: allowed}
}

func TestDisruptionsAllowed(t *testing.T) {
	pods := func(ready, unready int) []*corev1.Pod {
		var out []*corev1.Pod
		for i := range ready + unready {
			opts := []fixture.PodOption{fixture.WithLabels(map[string]string{"app": "web"})}
			if i < ready {
				opts = append(opts, fixture.Running())
			}
			out = append(out, fixture.Pod(fmt.Sprintf("p%d", i), opts...))
		}
		return append(out, fixture.Pod("other", fixture.Running()))
	}
	tests := []struct {
		name                     string
		pdb                      *policyv1.PodDisruptionBudget
		ready, unready, expected int
		want                     int32
	}{
		{"maxUnavailable 1, all ready", fixture.PDB("web", "web"), 10, 0, 10, 1},
		{"maxUnavailable 1, one down", fixture.PDB("web", "web"), 9, 1, 10, 0},
		{"maxUnavailable 1, one missing", fixture.PDB("web", "web"), 9, 0, 10, 0},
		{"maxUnavailable 1, expected from the pods", fixture.PDB("web", "web"), 3, 0, 0, 1},
		{"minAvailable 50%", fixture.PDB("web", "web", fixture.MinAvailable(intstr.FromString("50%"))), 10, 0, 10, 5},
		{"minAvailable 3 of 2", fixture.PDB("web", "web", fixture.MinAvailable(intstr.FromInt32(3))), 2, 0, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := DisruptionsAllowed(tc.pdb, pods(tc.ready, tc.unready), tc.expected); got != tc.want {
				t.Fatalf("got %d, want %d", got, tc.want)
			}
		})
	}
}
