package scaledown

import (
	"maps"
	"slices"
	"testing"

	"github.com/kscale/kscale/internal/fixture"
)

// A batch that fails as a whole falls back to single nodes: a's pod can
// only run on b, so a and b cannot both go, but a alone can.
func TestRemoveCandidatesBatchFallback(t *testing.T) {
	w := new(world).node("e1", "g").node("e2", "g").node("e3", "g").
		node("a", "g").node("b", "g", fixture.WithNodeLabels(map[string]string{"pool": "b-only"})).node("k", "g").
		pod("pa", "a", "100m", fixture.WithNodeSelector(map[string]string{"pool": "b-only"})).
		pod("pb", "b", "100m").pod("big", "k", "3")
	plan := runPlan(t, w, testConfig())
	if got, want := names(plan.Unneeded), []string{"e1", "e2", "e3", "a"}; !slices.Equal(got, want) {
		t.Fatalf("unneeded = %v, want %v", got, want)
	}
	want := map[string]Reason{"b": ReasonNoPlaceToMove, "k": ReasonHighUtilization}
	if got := reasons(plan.Blocked); !maps.Equal(got, want) {
		t.Fatalf("blocked = %v, want %v", got, want)
	}
	for _, b := range plan.Blocked {
		if b.Node == "b" && b.Pod != "default/pa" {
			t.Errorf("b blocked by pod %q, want default/pa", b.Pod)
		}
	}
}
