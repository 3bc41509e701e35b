package nodeautoscaler

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/simulator"
)

// podModel is the plain list a PodIndex must agree with: the pods in the
// order their names were first stored.
type podModel struct {
	keys []string
	pods map[string]*corev1.Pod
}

func (m *podModel) set(p *corev1.Pod) {
	k := p.Namespace + "/" + p.Name
	if _, ok := m.pods[k]; !ok {
		m.keys = append(m.keys, k)
	}
	m.pods[k] = p
}

func (m *podModel) remove(k string) {
	delete(m.pods, k)
	m.keys = slices.DeleteFunc(m.keys, func(s string) bool { return s == k })
}

func (m *podModel) list() []*corev1.Pod {
	out := make([]*corev1.Pod, 0, len(m.keys))
	for _, k := range m.keys {
		out = append(out, m.pods[k])
	}
	return out
}

// randomPod is a pod named name in one of the states the loop tells apart:
// unschedulable, bound to one of nodes (running or finished), or waiting.
func randomPod(r *rand.Rand, name string, nodes []string, t0 time.Time) *corev1.Pod {
	opts := []fixture.PodOption{
		fixture.InNamespace([]string{"a", "b"}[r.IntN(2)]),
		fixture.WithRequests("cpu", fmt.Sprintf("%dm", 100+r.IntN(5)*100)),
		// Few distinct times, so pending pods often tie on them.
		fixture.WithCreationTime(metav1.NewTime(t0.Add(time.Duration(r.IntN(4)) * time.Minute))),
	}
	switch r.IntN(5) {
	case 0, 1:
		opts = append(opts, fixture.OnNode(nodes[r.IntN(len(nodes))]), fixture.Running())
	case 2:
		opts = append(opts, fixture.UnschedulablePod())
	case 3:
		opts = append(opts, fixture.OnNode(nodes[r.IntN(len(nodes))]), func(p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded })
	}
	return fixture.Pod(name, opts...)
}

// layout lists the snapshot's nodes in order, each with its object and its
// pods' objects in order.
func layout(snap *simulator.Snapshot) string {
	var b strings.Builder
	for _, n := range snap.Nodes() {
		fmt.Fprintf(&b, "%s@%p:", n.Node().Name, n.Node())
		for _, p := range n.Pods() {
			fmt.Fprintf(&b, " %s/%s@%p", p.Namespace, p.Name, p)
		}
		fmt.Fprintf(&b, " %+v\n", n.Requested())
	}
	return b.String()
}

// TestPodIndexMatchesLists changes pods and nodes at random and checks, after
// every step, that the index sorts the pods out as splitPods does on the
// list, that a node's version changes whenever its pods change, and
// that snapshots synced from the index, from the lists, and alternately from
// both hold the same nodes and pods in the same order.
func TestPodIndexMatchesLists(t *testing.T) {
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	r := rand.New(rand.NewPCG(7, 11))
	names := []string{"n0", "n1", "n2", "n3", "n4", "n5"}
	nodes := map[string]*corev1.Node{}
	for _, n := range names {
		nodes[n] = fixture.Node(n)
	}
	model := &podModel{pods: map[string]*corev1.Pod{}}
	x := NewPodIndex()
	var fromLists, fromIndex, mixed snapshotCache
	versions, onNode := map[string]uint64{}, map[string][]*corev1.Pod{}
	next := 0
	for step := range 400 {
		for range 1 + r.IntN(6) {
			switch op := r.IntN(10); {
			case op < 4 || len(model.keys) == 0:
				next++
				p := randomPod(r, fmt.Sprintf("p%d", next), names, t0)
				model.set(p)
				x.Set(p)
			case op < 8:
				k := model.keys[r.IntN(len(model.keys))]
				old := model.pods[k]
				p := randomPod(r, old.Name, names, t0)
				p.Namespace = old.Namespace
				model.set(p)
				x.Set(p)
			default:
				k := model.keys[r.IntN(len(model.keys))]
				p := model.pods[k]
				model.remove(k)
				x.Delete(p.Namespace, p.Name)
				x.Delete(p.Namespace, p.Name) // deleting a missing pod changes nothing
			}
		}
		if r.IntN(4) == 0 {
			n := names[r.IntN(len(names))]
			nodes[n] = fixture.Node(n, fixture.WithCapacity(corev1.ResourceCPU, fmt.Sprint(4+r.IntN(4))))
		}
		var ready []*corev1.Node
		for _, n := range names {
			if r.IntN(8) > 0 {
				ready = append(ready, nodes[n])
			}
		}
		if r.IntN(3) == 0 {
			slices.Reverse(ready)
		}

		pending, bound := splitPods(model.list(), IsUnschedulable)
		if got := x.Pending(IsUnschedulable); !slices.Equal(got, pending) {
			t.Fatalf("step %d: index pending %v, lists %v", step, podNames(got), podNames(pending))
		}
		if got := x.BoundCount(); got != len(bound) {
			t.Fatalf("step %d: index counts %d bound pods, lists %d", step, got, len(bound))
		}
		if got := x.Bound(); !slices.Equal(got, bound) {
			t.Fatalf("step %d: index bound %v, lists %v", step, podNames(got), podNames(bound))
		}
		for _, n := range names {
			var want []*corev1.Pod
			for _, p := range bound {
				if p.Spec.NodeName == n {
					want = append(want, p)
				}
			}
			got, v := x.PodsOn(n), x.NodeVersion(n)
			if !slices.Equal(got, want) {
				t.Fatalf("step %d: index pods on %s %v, lists %v", step, n, podNames(got), podNames(want))
			}
			// A version may change with the pods back as they were (a pod
			// added and deleted in one step), never stay with other pods.
			if changed := !slices.Equal(want, onNode[n]); changed && v == versions[n] {
				t.Fatalf("step %d: node %s pods changed %v, version %d -> %d: %v / %v", step, n, changed, versions[n], v, podNames(want), podNames(onNode[n]))
			}
			versions[n], onNode[n] = v, want
		}

		readyPods := boundOn(ready, bound)
		a, err := fromLists.sync(ready, readyPods)
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		b, err := fromIndex.syncIndexed(ready, x)
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		if la, lb := layout(a), layout(b); la != lb {
			t.Fatalf("step %d: synced from the index\n%s\nfrom the lists\n%s", step, lb, la)
		}
		var c *simulator.Snapshot
		if step%3 == 0 {
			c, err = mixed.sync(ready, readyPods)
		} else {
			c, err = mixed.syncIndexed(ready, x)
		}
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		if la, lc := layout(a), layout(c); la != lc {
			t.Fatalf("step %d: synced alternately\n%s\nfrom the lists\n%s", step, lc, la)
		}
	}
}

// boundOn keeps the pods bound to one of nodes, as readySnapshot does.
func boundOn(nodes []*corev1.Node, bound []*corev1.Pod) []*corev1.Pod {
	names := map[string]bool{}
	for _, n := range nodes {
		names[n.Name] = true
	}
	var out []*corev1.Pod
	for _, p := range bound {
		if names[p.Spec.NodeName] {
			out = append(out, p)
		}
	}
	return out
}

func podNames(pods []*corev1.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Namespace + "/" + p.Name
	}
	return out
}

// TestPodIndexListsAreNotModified checks that a list handed out stays as
// it was when the index changes.
func TestPodIndexListsAreNotModified(t *testing.T) {
	x := NewPodIndex()
	p1 := fixture.Pod("p1", fixture.OnNode("n"), fixture.Running())
	p2 := fixture.Pod("p2", fixture.UnschedulablePod())
	x.Set(p1)
	x.Set(p2)
	bound, pending, on := x.Bound(), x.Pending(IsUnschedulable), x.PodsOn("n")
	x.Set(fixture.Pod("p2", fixture.OnNode("n"), fixture.Running()))
	x.Delete("default", "p1")
	x.Set(fixture.Pod("p3", fixture.UnschedulablePod()))
	if !slices.Equal(bound, []*corev1.Pod{p1}) || !slices.Equal(pending, []*corev1.Pod{p2}) || !slices.Equal(on, []*corev1.Pod{p1}) {
		t.Fatalf("handed-out lists changed: bound %v, pending %v, on n %v", podNames(bound), podNames(pending), podNames(on))
	}
	if got := podNames(x.Bound()); !slices.Equal(got, []string{"default/p2"}) {
		t.Fatalf("bound = %v, want [default/p2]", got)
	}
}
