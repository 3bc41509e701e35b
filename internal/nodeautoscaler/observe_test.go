package nodeautoscaler

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/fixture"
)

func TestSplitPodsOrdersPendingPods(t *testing.T) {
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	pending := func(ns, name string, age time.Duration) *corev1.Pod {
		return fixture.Pod(name, fixture.InNamespace(ns), fixture.UnschedulablePod(), fixture.WithCreationTime(metav1.NewTime(t0.Add(-age))))
	}
	bound := func(name string) *corev1.Pod { return fixture.Pod(name, fixture.OnNode("n"), fixture.Running()) }
	done := fixture.Pod("done", fixture.OnNode("n"), func(p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded })
	fresh := fixture.Pod("fresh") // pending, not yet found unschedulable
	in := []*corev1.Pod{
		pending("b", "x", time.Minute), bound("b1"), pending("a", "y", time.Minute), done,
		pending("a", "x", time.Minute), bound("b2"), pending("z", "old", time.Hour), fresh,
	}
	names := func(pods []*corev1.Pod) []string {
		var out []string
		for _, p := range pods {
			out = append(out, p.Namespace+"/"+p.Name)
		}
		return out
	}
	gotPending, gotBound := splitPods(in, IsUnschedulable)
	wantPending := []string{"z/old", "a/x", "a/y", "b/x"}
	if got := names(gotPending); !slices.Equal(got, wantPending) {
		t.Errorf("pending = %v, want %v (oldest first, then by namespace and name)", got, wantPending)
	}
	if got, want := names(gotBound), []string{"default/b1", "default/b2"}; !slices.Equal(got, want) {
		t.Errorf("bound = %v, want %v", got, want)
	}
	// Any input order gives the same result.
	slices.Reverse(in)
	if again, _ := splitPods(in, IsUnschedulable); !slices.Equal(names(again), wantPending) {
		t.Errorf("reversed input: pending = %v, want %v", names(again), wantPending)
	}
}

// splitPods is the model the PodIndex is checked against: it returns the pending pods (by isPending), oldest first (ties by
// namespace and name), and the pods that occupy their node, in input order.
// Listers return pods in no stable order; a stable order of the pending
// pods makes every simulation of them deterministic, so two loops on the
// same cluster decide the same.
func splitPods(pods []*corev1.Pod, isPending func(*corev1.Pod) bool) (pending, bound []*corev1.Pod) {
	bound = make([]*corev1.Pod, 0, len(pods))
	for _, p := range pods {
		switch {
		case isPending(p):
			pending = append(pending, p)
		case isActiveBound(p):
			bound = append(bound, p)
		}
	}
	sortPending(pending)
	return pending, bound
}
