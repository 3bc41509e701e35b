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
