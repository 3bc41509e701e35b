package actuation_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/nodeautoscaler/actuation"
	"github.com/kscale/kscale/internal/nodeautoscaler/scaledown"
)

// LastStarted reports the nodes Start marked ToBeDeleted, in order, with
// the pods to move; a node whose taint failed is not reported, and the
// next Start forgets the earlier ones.
func TestLastStartedNamesTheMarkedNodes(t *testing.T) {
	r := newRig(t, instant())
	web := r.pod("web-1", "web", "busy")
	plan := scaledown.Plan{
		Empty: []scaledown.Candidate{candidate(r.node("idle"), "g1"), candidate(fixture.Node("unknown"), "g1")},
		Drain: []scaledown.Candidate{candidate(r.node("busy"), "g2", web)},
	}
	out := r.act.Start(t.Context(), plan, t0)
	var got []string
	for _, s := range r.act.LastStarted() {
		got = append(got, fmt.Sprintf("%s/%s %s %d", s.Group, s.Node, s.Kind, len(s.Pods)))
	}
	if want := []string{"g1/idle empty 0", "g2/busy nonEmpty 1"}; !slices.Equal(got, want) {
		t.Errorf("started %v, want %v", got, want)
	}
	failed := slices.IndexFunc(out, func(o actuation.Outcome) bool { return o.Node == "unknown" && o.Failure == actuation.FailureTaint })
	if failed < 0 {
		t.Errorf("outcomes %v lack the taint failure of the unknown node", out)
	}
	r.act.Start(t.Context(), scaledown.Plan{}, t0)
	if got := r.act.LastStarted(); len(got) != 0 {
		t.Errorf("an empty plan still reports %v", got)
	}
}
