package simulator

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/fixture"
)

func nodeNames(s *Snapshot) []string {
	var out []string
	for _, n := range s.Nodes() {
		out = append(out, n.Node().Name)
	}
	return out
}

func TestOrderNodes(t *testing.T) {
	s := NewSnapshot()
	for _, n := range []string{"a", "b", "c", "d"} {
		mustAddNode(t, s, fixture.Node(n, fixture.WithCapacity(corev1.ResourceCPU, "1")))
	}
	s.Fork()
	s.OrderNodes([]string{"c", "missing", "a", "c"})
	if got, want := nodeNames(s), []string{"c", "a", "b", "d"}; !slices.Equal(got, want) {
		t.Fatalf("order = %v, want %v", got, want)
	}
	// First fit follows the new order.
	res := FilterSchedulable(s, []*corev1.Pod{fixture.Pod("p", fixture.WithRequests("cpu", "1"))}, FilterOptions{})
	if len(res.Placements) != 1 || res.Placements[0].NodeName != "c" {
		t.Fatalf("placements = %+v, want the pod on c", res.Placements)
	}
	if err := s.RemoveNode("a"); err != nil {
		t.Fatal(err)
	}
	mustAddNode(t, s, fixture.Node("e"))
	if got, want := nodeNames(s), []string{"c", "b", "d", "e"}; !slices.Equal(got, want) {
		t.Fatalf("order after changes = %v, want %v", got, want)
	}
	s.Revert()
	if got, want := nodeNames(s), []string{"a", "b", "c", "d"}; !slices.Equal(got, want) {
		t.Fatalf("order after revert = %v, want %v", got, want)
	}
	if s.PodCount() != 0 {
		t.Fatalf("pods after revert = %d, want 0", s.PodCount())
	}
	s.OrderNodes([]string{"d"})
	if got, want := nodeNames(s), []string{"d", "a", "b", "c"}; !slices.Equal(got, want) {
		t.Fatalf("order without a fork = %v, want %v", got, want)
	}
}

// IgnoreNodeName reschedules bound pods as they are: spec.nodeName
// neither restricts their placement nor splits their group.
func TestFilterIgnoreNodeName(t *testing.T) {
	build := func() *Snapshot {
		s := NewSnapshot()
		for _, n := range []string{"b", "c"} {
			mustAddNode(t, s, fixture.Node(n, fixture.WithCapacity(corev1.ResourceCPU, "1")))
		}
		return s
	}
	pods := []*corev1.Pod{
		fixture.Pod("p1", fixture.OnNode("gone"), fixture.WithRequests("cpu", "600m")),
		fixture.Pod("p2", fixture.OnNode("other"), fixture.WithRequests("cpu", "600m")),
	}
	res := FilterSchedulable(build(), pods, FilterOptions{})
	if len(res.Placements) != 0 || len(res.Remaining) != 2 {
		t.Fatalf("without IgnoreNodeName: placements %+v, remaining %d; want none placed", res.Placements, len(res.Remaining))
	}
	snap := build()
	res = FilterSchedulable(snap, pods, FilterOptions{IgnoreNodeName: true})
	if len(res.Remaining) != 0 || len(res.Placements) != 2 || res.Placements[0].NodeName != "b" || res.Placements[1].NodeName != "c" {
		t.Fatalf("with IgnoreNodeName: placements %+v, remaining %d; want p1 on b, p2 on c", res.Placements, len(res.Remaining))
	}
	if pods[0].Spec.NodeName != "gone" {
		t.Fatalf("the pod was modified: spec.nodeName %q", pods[0].Spec.NodeName)
	}
	// The grouping made with IgnoreNodeName is not reused without it.
	p3 := fixture.Pod("p3", fixture.OnNode("gone"), fixture.WithRequests("cpu", "600m"))
	snap = build()
	snap.Fork()
	res = FilterSchedulable(snap, append(pods, p3), FilterOptions{IgnoreNodeName: true})
	if len(res.Remaining) != 1 || res.Remaining[0] != p3 {
		t.Fatalf("with IgnoreNodeName: remaining %v, want p3", res.Remaining)
	}
	snap.Revert()
	res = FilterSchedulable(snap, []*corev1.Pod{p3}, FilterOptions{})
	if len(res.Placements) != 0 {
		t.Fatalf("grouping reused across modes: placements %+v", res.Placements)
	}
}
