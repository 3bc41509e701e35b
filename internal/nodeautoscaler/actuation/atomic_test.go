package actuation_test

import (
	"errors"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/nodeautoscaler/actuation"
	"github.com/kscale/kscale/internal/nodeautoscaler/scaledown"
)

// The nodes of a zero-or-max group are deleted in one provider call once
// every one of them is drained, or not at all: a failure of one gives up
// the others (upstream's GroupDeletionScheduler). The group has two empty
// nodes e1, e2 and a node d1 with one pod to drain.
func TestAtomicGroupDeletion(t *testing.T) {
	tests := []struct {
		name   string
		atomic bool
		// setUp breaks the world before the deletion starts.
		setUp     func(r *rig)
		unmarked  string // a node that cannot be marked (not in the cluster)
		wantCalls []string
		// wantFailures is each node's failure ("" succeeded).
		wantFailures map[string]actuation.FailureReason
		// wantAt is when the provider call was made, after the start.
		wantAt time.Duration
	}{
		{name: "all nodes go in one call after the drain", atomic: true, wantCalls: []string{"z[i-e1 i-e2 i-d1]"},
			wantFailures: map[string]actuation.FailureReason{"e1": "", "e2": "", "d1": ""}, wantAt: 10 * time.Second},
		{name: "a plain group deletes the empty nodes at once and the drained one alone", wantCalls: []string{"z[i-e1 i-e2]", "z[i-d1]"},
			wantFailures: map[string]actuation.FailureReason{"e1": "", "e2": "", "d1": ""}},
		{name: "a drain that times out gives up the whole group", atomic: true,
			setUp: func(r *rig) { r.cluster.AddPDB(fixture.PDB("web", "web"), 2) }, // one of two pods missing: no disruption allowed
			wantFailures: map[string]actuation.FailureReason{"e1": actuation.FailureAtomicGroup, "e2": actuation.FailureAtomicGroup,
				"d1": actuation.FailureEvictionTimeout}},
		{name: "a node that cannot be marked gives up the group at once", atomic: true, unmarked: "e2",
			wantFailures: map[string]actuation.FailureReason{"e1": actuation.FailureAtomicGroup, "e2": actuation.FailureTaint,
				"d1": actuation.FailureAtomicGroup}},
		{name: "a failed provider call fails every node", atomic: true, setUp: func(r *rig) { r.cloud.err = errors.New("quota") },
			wantCalls: []string{"z[i-e1 i-e2 i-d1]"},
			wantFailures: map[string]actuation.FailureReason{"e1": actuation.FailureCloudDelete, "e2": actuation.FailureCloudDelete,
				"d1": actuation.FailureCloudDelete}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := instant()
			cfg.MaxGracefulTermination = 10 * time.Second
			r := newRig(t, cfg)
			node := func(name string) scaledown.Candidate {
				if name == tc.unmarked {
					return candidate(fixture.Node(name), "z")
				}
				return candidate(r.node(name), "z")
			}
			d1 := r.node("d1")
			p := r.pod("web-1", "web", "d1")
			grace := int64(10)
			p.Spec.TerminationGracePeriodSeconds = &grace
			plan := scaledown.Plan{Empty: []scaledown.Candidate{node("e1"), node("e2")}, Drain: []scaledown.Candidate{candidate(d1, "z", p)}}
			if tc.atomic {
				plan.Atomic = []string{"z"}
			}
			if tc.setUp != nil {
				tc.setUp(r)
			}
			got := map[string]actuation.FailureReason{}
			var calledAt time.Duration
			collect := func(out []actuation.Outcome) {
				for _, o := range out {
					got[o.Node] = o.Failure
				}
				if calledAt == 0 && len(r.cloud.calls) > 0 {
					calledAt = r.now.Sub(t0)
				}
			}
			collect(r.act.Start(t.Context(), plan, t0))
			for len(got) < 3 && r.now.Before(t0.Add(time.Hour)) {
				collect(r.runUntil(time.Hour, nil))
			}
			if !maps.Equal(got, tc.wantFailures) {
				t.Errorf("failures %v, want %v", got, tc.wantFailures)
			}
			if !slices.Equal(r.cloud.calls, tc.wantCalls) {
				t.Errorf("provider calls %v, want %v", r.cloud.calls, tc.wantCalls)
			}
			if tc.wantAt != 0 && calledAt != tc.wantAt {
				t.Errorf("provider called %v after the start, want %v", calledAt, tc.wantAt)
			}
			for n, f := range got {
				if f == "" || n == tc.unmarked {
					continue
				}
				if taints := r.taints(n); len(taints) != 0 {
					t.Errorf("node %s failed with %s but keeps taints %v", n, f, taints)
				}
			}
			if left := r.act.InFlight(); left != (scaledown.InFlight{}) {
				t.Errorf("deletions left in flight: %+v", left)
			}
		})
	}
}
