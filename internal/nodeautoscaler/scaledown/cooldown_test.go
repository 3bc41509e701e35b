package scaledown

import (
	"slices"
	"testing"
	"time"
)

// TestPlanLocalDelays checks --scale-down-delay-type-local: a group's own
// scale-up, deletion or failure keeps only that group's nodes from being
// candidates (blocked as NodeGroupInCooldown, not a skipped round), other
// groups scale down, and pods can still move onto the cooling group's
// nodes. Without the flag the same activity skips the whole round.
func TestPlanLocalDelays(t *testing.T) {
	now := t0.Add(time.Hour)
	tests := []struct {
		name    string
		local   bool
		in      func(*Input)
		skipped bool
		cooling bool // a's nodes are blocked NodeGroupInCooldown
	}{
		{"no activity", true, nil, false, false},
		{"a scaled up, local", true, func(in *Input) {
			in.LastScaleUp, in.GroupLastScaleUp = now.Add(-time.Minute), map[string]time.Time{"a": now.Add(-time.Minute)}
		}, false, true},
		{"a scaled up, global", false, func(in *Input) {
			in.LastScaleUp, in.GroupLastScaleUp = now.Add(-time.Minute), map[string]time.Time{"a": now.Add(-time.Minute)}
		}, true, false},
		{"a scaled up long ago, local", true, func(in *Input) {
			in.GroupLastScaleUp = map[string]time.Time{"a": now.Add(-time.Hour)}
		}, false, false},
		{"a deleted a node within the scan interval, local", true, func(in *Input) {
			in.GroupLastDeletion = map[string]time.Time{"a": now.Add(-5 * time.Second)}
		}, false, true},
		{"a failed to delete, local", true, func(in *Input) {
			in.GroupLastFailure = map[string]time.Time{"a": now.Add(-time.Minute)}
		}, false, true},
		{"a failed to delete, over, local", true, func(in *Input) {
			in.GroupLastFailure = map[string]time.Time{"a": now.Add(-3 * time.Minute)}
		}, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.UnneededTime, cfg.DelayAfterAdd, cfg.DelayTypeLocal = 0, 10*time.Minute, tc.local
			// a-1 is empty, a-2 half full; b-1 holds a pod that fits on a-2.
			w := new(world).node("a-1", "a").node("a-2", "a").pod("x", "a-2", "2").node("b-1", "b").pod("y", "b-1", "1")
			w.groups = append(w.groups[:0], Group{ID: "a", TargetSize: 2}, Group{ID: "b", TargetSize: 1})
			in := w.input(now)
			if tc.in != nil {
				tc.in(&in)
			}
			plan, err := mustPlanner(t, cfg).Plan(in)
			if err != nil {
				t.Fatal(err)
			}
			if (plan.Skipped != "") != tc.skipped {
				t.Fatalf("skipped = %q, want a reason: %v", plan.Skipped, tc.skipped)
			}
			r := reasons(plan.Blocked)
			if got := r["a-1"] == ReasonGroupCooldown && r["a-2"] == ReasonGroupCooldown; got != tc.cooling {
				t.Fatalf("a's nodes blocked %v, %v; want cooling %v", r["a-1"], r["a-2"], tc.cooling)
			}
			if r["b-1"] != "" {
				t.Fatalf("b-1 blocked: %s", r["b-1"])
			}
			var chosen []string
			for _, c := range append(plan.Empty, plan.Drain...) {
				chosen = append(chosen, c.Node.Name)
			}
			slices.Sort(chosen)
			if tc.cooling && !slices.Equal(chosen, []string{"b-1"}) {
				// b-1's pod moves onto a cooling node.
				t.Fatalf("chosen %v, want only b-1", chosen)
			}
			if !tc.skipped && !tc.cooling && !slices.Contains(chosen, "a-1") {
				t.Fatalf("chosen %v, want a-1 among them", chosen)
			}
		})
	}
}

// TestCooldownNotRechecked: a cooling node is simulated again as soon as
// its group's delay ends, not after --unremovable-node-recheck-timeout.
func TestCooldownNotRechecked(t *testing.T) {
	if ReasonGroupCooldown.rechecked() {
		t.Fatal("NodeGroupInCooldown is rechecked")
	}
}
