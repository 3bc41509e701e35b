package live

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kscale/kscale/internal/nodeautoscaler"
)

func TestPodChangesApplyInFirstChangeOrder(t *testing.T) {
	pod := func(name, node string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}, Spec: corev1.PodSpec{NodeName: node},
			Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	}
	q := newPodChanges()
	h := q.handler()
	x := nodeautoscaler.NewPodIndex()
	a1, b1, c1 := pod("a", "n1"), pod("b", "n1"), pod("c", "n2")
	h.OnAdd(a1, true)
	h.OnAdd(b1, true)
	h.OnAdd(c1, true)
	q.applyTo(x)
	if got := names(x.Bound()); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("bound after the first apply: %v", got)
	}
	// b changes twice and is deleted, a moves node, a new pod d comes; a
	// tombstone deletes c. One apply of the queue leaves the latest of
	// each, a keeping its place in the order.
	b2 := pod("b", "n2")
	a2 := pod("a", "n2")
	h.OnUpdate(b1, b2)
	h.OnUpdate(a1, a2)
	h.OnDelete(b2)
	h.OnAdd(pod("d", "n1"), false)
	h.OnDelete(cache.DeletedFinalStateUnknown{Key: "ns/c", Obj: c1})
	h.OnAdd("not a pod", false)
	q.applyTo(x)
	if got := names(x.Bound()); !slices.Equal(got, []string{"a", "d"}) {
		t.Errorf("bound after the second apply: %v, want [a d]", got)
	}
	if got := names(x.PodsOn("n2")); !slices.Equal(got, []string{"a"}) {
		t.Errorf("pods on n2: %v, want [a]", got)
	}
	if p, _ := x.Pod("ns", "a"); p != a2 {
		t.Error("the index holds an older object of a")
	}
	before := x.Gen()
	q.applyTo(x)
	if x.Gen() != before {
		t.Error("an empty queue changed the index")
	}
}

func names(pods []*corev1.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Name
	}
	return out
}
