package simulator

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/fixture"
)

func mustAddNode(t testing.TB, s *Snapshot, n *corev1.Node) {
	t.Helper()
	if err := s.AddNode(n); err != nil {
		t.Fatal(err)
	}
}

func mustAddPod(t testing.TB, s *Snapshot, p *corev1.Pod) {
	t.Helper()
	if err := s.AddPod(p); err != nil {
		t.Fatal(err)
	}
}

func TestSnapshotAddRemove(t *testing.T) {
	s := NewSnapshot()
	mustAddNode(t, s, fixture.Node("n1"))
	if err := s.AddNode(fixture.Node("n1")); err == nil {
		t.Fatal("duplicate node accepted")
	}
	mustAddPod(t, s, fixture.Pod("p1", fixture.OnNode("n1")))
	if err := s.AddPod(fixture.Pod("p1", fixture.OnNode("n1"))); err == nil {
		t.Fatal("duplicate pod accepted")
	}
	if err := s.AddPod(fixture.Pod("p2", fixture.OnNode("missing"))); err == nil {
		t.Fatal("pod on a missing node accepted")
	}
	if node, ok := s.NodeOf("default", "p1"); !ok || node != "n1" {
		t.Fatalf("NodeOf = %q, %v", node, ok)
	}
	info, _ := s.NodeInfo("n1")
	if got := info.Requested(); got.MilliCPU != 100 || got.Pods != 1 {
		t.Fatalf("requested = %+v", got)
	}
	if err := s.RemovePod("default", "p1"); err != nil {
		t.Fatal(err)
	}
	if err := s.RemovePod("default", "p1"); err == nil {
		t.Fatal("removing a missing pod succeeded")
	}
	if got := info.Requested(); got.MilliCPU != 0 || s.PodCount() != 0 {
		t.Fatalf("after remove: requested %+v, pods %d", got, s.PodCount())
	}
	mustAddPod(t, s, fixture.Pod("p3", fixture.OnNode("n1")))
	if err := s.RemoveNode("n1"); err != nil {
		t.Fatal(err)
	}
	if s.NodeCount() != 0 || s.PodCount() != 0 {
		t.Fatalf("after RemoveNode: %s", s)
	}
}

func TestSnapshotForkRevertCommit(t *testing.T) {
	s := NewSnapshot()
	mustAddNode(t, s, fixture.Node("n1"))
	mustAddNode(t, s, fixture.Node("n2"))
	mustAddPod(t, s, fixture.Pod("a", fixture.OnNode("n1")))
	mustAddPod(t, s, fixture.Pod("b", fixture.OnNode("n1")))

	s.Fork()
	mustAddNode(t, s, fixture.Node("n3"))
	mustAddPod(t, s, fixture.Pod("c", fixture.OnNode("n3")))
	if err := s.RemovePod("default", "a"); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveNode("n2"); err != nil {
		t.Fatal(err)
	}
	s.Fork()
	mustAddPod(t, s, fixture.Pod("d", fixture.OnNode("n1")))
	s.Commit() // merges into the outer fork
	s.Revert()

	if s.NodeCount() != 2 || s.PodCount() != 2 {
		t.Fatalf("after revert: %s", s)
	}
	info, _ := s.NodeInfo("n1")
	pods := info.Pods()
	if len(pods) != 2 || pods[0].Name != "a" || pods[1].Name != "b" {
		t.Fatalf("n1 pods after revert = %v", names(pods))
	}
	if got := info.Requested(); got.MilliCPU != 200 {
		t.Fatalf("n1 requested after revert = %+v", got)
	}
	if _, ok := s.NodeInfo("n3"); ok {
		t.Fatal("n3 survived revert")
	}
	if nodes := s.Nodes(); nodes[0].Node().Name != "n1" || nodes[1].Node().Name != "n2" {
		t.Fatal("node order not restored")
	}

	s.Fork()
	mustAddPod(t, s, fixture.Pod("e", fixture.OnNode("n2")))
	s.Commit()
	s.Revert() // no open fork: no-op
	if s.PodCount() != 3 || s.Forked() != 0 {
		t.Fatalf("after commit: %s", s)
	}
}

func names(pods []*corev1.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Name
	}
	return out
}

func TestPodLookupAfterSimulatedPlacements(t *testing.T) {
	s := NewSnapshot()
	mustAddNode(t, s, fixture.Node("n1"))
	mustAddPod(t, s, fixture.Pod("bound", fixture.OnNode("n1")))
	pending := replicas("web", 3)
	res := FilterSchedulable(s, pending, FilterOptions{})
	if len(res.Placements) != 3 {
		t.Fatalf("placements %d", len(res.Placements))
	}
	// Placed pods are found by name once a lookup needs them.
	if node, ok := s.NodeOf("default", "web-1"); !ok || node != "n1" {
		t.Fatalf("NodeOf placed pod = %q, %v", node, ok)
	}
	s.Fork()
	if err := s.RemovePod("default", "web-1"); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.NodeOf("default", "web-1"); ok {
		t.Fatal("removed pod still found")
	}
	s.Revert()
	if _, ok := s.NodeOf("default", "web-1"); !ok {
		t.Fatal("pod restored by revert not found")
	}
	if err := s.AddPod(fixture.Pod("web-2", fixture.OnNode("n1"))); err == nil {
		t.Fatal("duplicate of a placed pod accepted")
	}
	if s.PodCount() != 4 {
		t.Fatalf("pods %d", s.PodCount())
	}
}

// TestReserve checks that a reserved snapshot behaves as an unreserved
// one: duplicates are found, lookups and removals work, and reserving a
// snapshot that holds pods keeps them findable.
func TestReserve(t *testing.T) {
	for _, early := range []bool{true, false} {
		s := NewSnapshot()
		if early {
			s.Reserve(2, 10)
		}
		mustAddNode(t, s, fixture.Node("n1"))
		mustAddPod(t, s, fixture.Pod("p1", fixture.OnNode("n1")))
		if !early {
			s.Reserve(2, 10)
		}
		mustAddNode(t, s, fixture.Node("n2"))
		mustAddPod(t, s, fixture.Pod("p2", fixture.OnNode("n2")))
		if err := s.AddPod(fixture.Pod("p1", fixture.OnNode("n2"))); err == nil {
			t.Fatalf("early=%v: duplicate pod accepted", early)
		}
		if node, ok := s.NodeOf("default", "p1"); !ok || node != "n1" {
			t.Fatalf("early=%v: NodeOf(p1) = %q, %v", early, node, ok)
		}
		if err := s.RemovePod("default", "p2"); err != nil {
			t.Fatalf("early=%v: %v", early, err)
		}
		if s.PodCount() != 1 || s.NodeCount() != 2 {
			t.Fatalf("early=%v: %d pods on %d nodes, want 1 on 2", early, s.PodCount(), s.NodeCount())
		}
	}
}

// TestPodIndexKeepsRemovedPods checks lookups around removed pods, which
// the lookup index keeps until a pod of their name replaces them or a
// sweep drops them.
func TestPodIndexKeepsRemovedPods(t *testing.T) {
	s := NewSnapshot()
	mustAddNode(t, s, fixture.Node("n1"))
	mustAddNode(t, s, fixture.Node("n2"))
	mustAddPod(t, s, fixture.Pod("p1", fixture.OnNode("n1")))
	mustAddPod(t, s, fixture.Pod("p2", fixture.OnNode("n2")))
	s.Fork()
	if err := s.RemoveNode("n1"); err != nil {
		t.Fatal(err)
	}
	if node, ok := s.NodeOf("default", "p1"); ok {
		t.Fatalf("removed pod found on %q", node)
	}
	if err := s.RemovePod("default", "p1"); err == nil {
		t.Fatal("removed pod removed again")
	}
	mustAddPod(t, s, fixture.Pod("p1", fixture.OnNode("n2")))
	if node, _ := s.NodeOf("default", "p1"); node != "n2" {
		t.Fatalf("re-added pod on %q, want n2", node)
	}
	s.Revert()
	if node, _ := s.NodeOf("default", "p1"); node != "n1" {
		t.Fatalf("after revert the pod is on %q, want n1", node)
	}
	if err := s.AddPod(fixture.Pod("p1", fixture.OnNode("n2"))); err == nil {
		t.Fatal("duplicate of a restored pod accepted")
	}

	// Enough removals to sweep: the survivors stay findable.
	const many = 3 * minSweep
	mustAddNode(t, s, fixture.Node("big"))
	for i := range many {
		mustAddPod(t, s, fixture.Pod(fmt.Sprintf("m%d", i), fixture.OnNode("big")))
	}
	for i := range many - 10 {
		if err := s.RemovePod("default", fmt.Sprintf("m%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if len(s.podIndex) >= many {
		t.Fatalf("index holds %d entries after %d removals: no sweep", len(s.podIndex), many-10)
	}
	for i := many - 10; i < many; i++ {
		if node, ok := s.NodeOf("default", fmt.Sprintf("m%d", i)); !ok || node != "big" {
			t.Fatalf("m%d: NodeOf = %q, %v", i, node, ok)
		}
	}
	if _, ok := s.NodeOf("default", "m0"); ok {
		t.Fatal("removed pod m0 found")
	}
	if s.PodCount() != 12 {
		t.Fatalf("%d pods, want 12", s.PodCount())
	}
}
