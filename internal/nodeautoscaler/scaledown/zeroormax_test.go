package scaledown

import (
	"fmt"
	"slices"
	"testing"

	"github.com/kscale/kscale/internal/fixture"
)

// zomWorld builds groups of nodes: per group, its empty nodes, its nodes
// with a movable pod (1 cpu) and its full nodes (3 of 4 cpu: too busy to
// go); a group whose name starts with "z" is zero-or-max. A big node of no
// removable kind takes the moved pods.
func zomWorld(groups ...zomGroup) *world {
	w := new(world).node("big", "keep", fixture.WithCapacity("cpu", "100"), fixture.WithCapacity("pods", "500")).pod("x", "big", "60")
	for _, g := range groups {
		for i := range g.empty {
			w.node(fmt.Sprintf("%s-e%d", g.id, i), g.id)
		}
		for i := range g.drain {
			n := fmt.Sprintf("%s-d%d", g.id, i)
			w.node(n, g.id).pod("p"+n, n, "1")
		}
		for i := range g.full {
			n := fmt.Sprintf("%s-f%d", g.id, i)
			w.node(n, g.id).pod("p"+n, n, "3")
		}
	}
	for i := range w.groups {
		g := &w.groups[i]
		g.Options.ZeroOrMaxNodeScaling = g.ID[0] == 'z'
		for _, zg := range groups {
			if zg.id == g.ID {
				g.TargetSize += zg.extraTarget
				g.MinSize = zg.min
			}
		}
	}
	return w
}

type zomGroup struct {
	id                 string
	empty, drain, full int
	extraTarget, min   int
}

func TestPlanZeroOrMax(t *testing.T) {
	tests := []struct {
		name       string
		groups     []zomGroup
		par, drain int
		inFlight   InFlight
		wantEmpty  []string
		wantDrain  []string
		wantFailed []string // nodes blocked with ReasonAtomicScaleDownFailed
		wantAtomic []string // groups taken whole (Plan.Atomic)
	}{
		{name: "a group of empty nodes goes whole", groups: []zomGroup{{id: "za", empty: 3}}, par: 10, drain: 1,
			wantEmpty: []string{"za-e0", "za-e1", "za-e2"}, wantAtomic: []string{"za"}},
		{name: "empty and drained nodes go together", groups: []zomGroup{{id: "za", empty: 1, drain: 2}}, par: 10, drain: 5,
			wantEmpty: []string{"za-e0"}, wantDrain: []string{"za-d0", "za-d1"}, wantAtomic: []string{"za"}},
		{name: "one busy node keeps the whole group", groups: []zomGroup{{id: "za", empty: 2, full: 1}}, par: 10, drain: 1,
			wantFailed: []string{"za-e0", "za-e1"}},
		{name: "the same nodes of a plain group go one by one", groups: []zomGroup{{id: "ga", empty: 2, full: 1}}, par: 10, drain: 1,
			wantEmpty: []string{"ga-e0", "ga-e1"}},
		{name: "all registered nodes go although the target is higher", groups: []zomGroup{{id: "za", empty: 2, extraTarget: 1}},
			par: 10, drain: 1, wantEmpty: []string{"za-e0", "za-e1"}, wantAtomic: []string{"za"}},
		{name: "min size keeps the group whole", groups: []zomGroup{{id: "za", empty: 3, min: 1}}, par: 10, drain: 1,
			wantFailed: []string{"za-e0", "za-e1"}},
		{name: "the first group may overflow the parallelism", groups: []zomGroup{{id: "za", empty: 3}, {id: "ga", empty: 1}},
			par: 2, drain: 1, wantEmpty: []string{"za-e0", "za-e1", "za-e2"}, wantAtomic: []string{"za"}},
		{name: "a second group that does not fit stops the atomic groups", groups: []zomGroup{{id: "za", empty: 2}, {id: "zb", empty: 2}, {id: "ga", empty: 1}},
			par: 3, drain: 1, wantEmpty: []string{"za-e0", "za-e1", "ga-e0"}, wantAtomic: []string{"za"}},
		{name: "a used-up budget takes no group", groups: []zomGroup{{id: "za", empty: 2}}, par: 3, drain: 1, inFlight: InFlight{Empty: 3}},
		{name: "a group to drain needs the drain budget", groups: []zomGroup{{id: "za", drain: 2}}, par: 10, drain: 1,
			inFlight: InFlight{NonEmpty: 1}},
		{name: "a group to drain may overflow the drain budget", groups: []zomGroup{{id: "za", drain: 3}}, par: 10, drain: 1,
			wantDrain: []string{"za-d0", "za-d1", "za-d2"}, wantAtomic: []string{"za"}},
		{name: "every group taken whole is named, empty ones first", groups: []zomGroup{{id: "zb", drain: 1}, {id: "za", empty: 1}},
			par: 10, drain: 5, wantEmpty: []string{"za-e0"}, wantDrain: []string{"zb-d0"}, wantAtomic: []string{"za", "zb"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.UnneededTime = 0
			cfg.MaxEmptyBulkDelete, cfg.MaxScaleDownParallelism, cfg.MaxDrainParallelism = 10, tc.par, tc.drain
			in := zomWorld(tc.groups...).input(t0)
			in.InFlight = tc.inFlight
			plan, err := mustPlanner(t, cfg).Plan(in)
			if err != nil {
				t.Fatal(err)
			}
			if got := names(plan.Empty); !slices.Equal(got, append([]string{}, tc.wantEmpty...)) {
				t.Errorf("empty %v, want %v", got, tc.wantEmpty)
			}
			if got := names(plan.Drain); !slices.Equal(got, append([]string{}, tc.wantDrain...)) {
				t.Errorf("drain %v, want %v", got, tc.wantDrain)
			}
			failed := []string{}
			for _, b := range plan.Blocked {
				if b.Reason == ReasonAtomicScaleDownFailed {
					failed = append(failed, b.Node)
				}
			}
			if !slices.Equal(plan.Atomic, tc.wantAtomic) {
				t.Errorf("atomic groups %v, want %v", plan.Atomic, tc.wantAtomic)
			}
			if !slices.Equal(failed, append([]string{}, tc.wantFailed...)) {
				t.Errorf("atomic scale-down failed for %v, want %v (blocked %v)", failed, tc.wantFailed, plan.Blocked)
			}
			if !slices.IsSortedFunc(plan.Blocked, func(a, b Blocked) int { return cmpString(a.Node, b.Node) }) {
				t.Errorf("blocked nodes not in name order: %v", plan.Blocked)
			}
		})
	}
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// A zero-or-max group's nodes are simulated even when the candidate limits
// leave other non-empty nodes out, and they do not use up the count.
func TestZeroOrMaxCandidateLimits(t *testing.T) {
	w := zomWorld(zomGroup{id: "za", drain: 2}, zomGroup{id: "ga", drain: 2})
	cfg := testConfig()
	cfg.UnneededTime = 0
	cfg.NonEmptyCandidatesCount, cfg.CandidatesPoolRatio, cfg.CandidatesPoolMinCount = 1, 0, 1
	plan, err := mustPlanner(t, cfg).Plan(w.input(t0))
	if err != nil {
		t.Fatal(err)
	}
	unneeded := map[string]bool{}
	for _, c := range plan.Unneeded {
		unneeded[c.Node.Name] = true
	}
	if !unneeded["za-d0"] || !unneeded["za-d1"] {
		t.Fatalf("unneeded %v: want both nodes of the zero-or-max group", names(plan.Unneeded))
	}
	if n := len(plan.Unneeded); n != 3 {
		t.Fatalf("unneeded %v: want the group's two and one node of ga (the count is 1)", names(plan.Unneeded))
	}
}
