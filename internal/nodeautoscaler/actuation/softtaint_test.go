package actuation

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/nodeautoscaler/clusterstate"
	"github.com/kscale/kscale/internal/nodeautoscaler/scaledown"
)

// taintRecorder is a Cluster that records taint writes (the rest of
// Cluster is unused here).
type taintRecorder struct {
	Cluster
	writes []string
}

func (r *taintRecorder) AddTaint(_ context.Context, node string, t corev1.Taint) error {
	r.writes = append(r.writes, "+"+node+" "+t.Key+"="+t.Value+":"+string(t.Effect))
	return nil
}

func (r *taintRecorder) RemoveTaints(_ context.Context, node string, keys ...string) error {
	r.writes = append(r.writes, "-"+node+" "+strings.Join(keys, ","))
	return nil
}

// TestSoftTaints checks --max-bulk-soft-taint-count and
// --max-bulk-soft-taint-time: the soft taint goes on unneeded nodes and
// off the others, removals first, within the budgets, never touching
// nodes marked ToBeDeleted and never added to a node that is not ready.
func TestSoftTaints(t *testing.T) {
	now := time.Unix(1700000000, 0)
	soft := fixture.Taint(DeletionCandidateTaint, "1", corev1.TaintEffectPreferNoSchedule)
	marked := fixture.Taint(clusterstate.ToBeDeletedTaint, "", corev1.TaintEffectNoSchedule)
	nodes := []scaledown.Node{
		{Node: fixture.Node("u1")}, {Node: fixture.Node("u2")}, {Node: fixture.Node("u3", fixture.WithTaints(soft))},
		{Node: fixture.Node("n1", fixture.WithTaints(soft))}, {Node: fixture.Node("n2")}, {Node: fixture.Node("n3", fixture.WithTaints(soft))},
		{Node: fixture.Node("d1", fixture.WithTaints(soft, marked))}, {Node: fixture.Node("d2", fixture.WithTaints(marked))},
		{Node: fixture.Node("r1")}, {Node: fixture.Node("r2", fixture.WithTaints(soft))},
	}
	var unneeded []scaledown.Candidate
	for _, n := range nodes {
		if n.Node.Name[0] == 'u' || n.Node.Name[0] == 'r' || n.Node.Name == "d2" {
			// r1 and r2 are unneeded but not ready: r1 gets no taint, r2 keeps its.
			unneeded = append(unneeded, scaledown.Candidate{Node: n.Node, Ready: n.Node.Name[0] != 'r'})
		}
	}
	add := func(n string) string { return "+" + n + " " + DeletionCandidateTaint + "=1700000000:PreferNoSchedule" }
	del := func(n string) string { return "-" + n + " " + DeletionCandidateTaint }
	tests := []struct {
		name   string
		count  int
		budget time.Duration
		step   time.Duration
		want   []string
	}{
		{name: "all within budget", count: 10, budget: 3 * time.Second, want: []string{del("n1"), del("n3"), add("u1"), add("u2")}},
		{name: "count budget", count: 3, budget: 3 * time.Second, want: []string{del("n1"), del("n3"), add("u1")}},
		{name: "time budget", count: 10, budget: 3 * time.Second, step: time.Second, want: []string{del("n1"), del("n3")}},
		{name: "off", count: 0, budget: 3 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &taintRecorder{}
			s := &softTainter{count: tc.count, budget: tc.budget, cluster: rec, clock: &fixture.StepClock{At: now, Step: tc.step}}
			done := s.update(t.Context(), nodes, unneeded, now)
			if !slices.Equal(rec.writes, tc.want) || done != len(tc.want) {
				t.Errorf("writes = %q (%d), want %q", rec.writes, done, tc.want)
			}
		})
	}
}
