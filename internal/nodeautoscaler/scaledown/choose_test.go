package scaledown

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/simulator"
)

func TestPlanUnneededTime(t *testing.T) {
	w := new(world).node("ready", "g").node("unready", "g").node("full", "g").pod("x", "full", "3")
	w.nodes[1].Ready = false
	p := mustPlanner(t, testConfig()) // unneeded 10m, unready 20m
	steps := []struct {
		at    time.Duration
		empty []string
	}{
		{0, []string{}},
		{9 * time.Minute, []string{}},
		{10 * time.Minute, []string{"ready"}},
		{20 * time.Minute, []string{"ready", "unready"}},
	}
	for _, s := range steps {
		plan, err := p.Plan(w.input(t0.Add(s.at)))
		if err != nil {
			t.Fatal(err)
		}
		if got := names(plan.Empty); !slices.Equal(got, s.empty) {
			t.Errorf("at %v: empty = %v, want %v", s.at, got, s.empty)
		}
	}
	// A node that stops being unneeded starts over.
	w.pod("y", "ready", "3")
	if _, err := p.Plan(w.input(t0.Add(21 * time.Minute))); err != nil {
		t.Fatal(err)
	}
	w.pods = w.pods[:len(w.pods)-1]
	plan, _ := p.Plan(w.input(t0.Add(22 * time.Minute)))
	for _, c := range plan.Unneeded {
		if c.Node.Name == "ready" && !c.UnneededSince.Equal(t0.Add(22*time.Minute)) {
			t.Errorf("unneeded since = %v, want the restart", c.UnneededSince)
		}
	}
	if got := names(plan.Empty); !slices.Equal(got, []string{"unready"}) {
		t.Errorf("after restart: empty = %v", got)
	}
}

func TestPlanSkipReasons(t *testing.T) {
	now := t0.Add(time.Hour)
	tests := []struct {
		name   string
		cfg    func(*Config)
		in     func(*Input)
		reason bool
	}{
		{"nothing in the way", nil, nil, false},
		{"disabled", func(c *Config) { c.Enabled = false }, nil, true},
		{"after scale-up", func(c *Config) { c.DelayAfterAdd = time.Hour }, func(in *Input) { in.LastScaleUp = now.Add(-time.Minute) }, true},
		{"after scale-up, cooldown over", func(c *Config) { c.DelayAfterAdd = time.Hour }, func(in *Input) { in.LastScaleUp = now.Add(-time.Hour) }, false},
		{"negative delay-after-add", nil, func(in *Input) { in.LastScaleUp = now }, false},
		{"after delete uses scan interval", nil, func(in *Input) { in.LastDeletion = now.Add(-5 * time.Second) }, true},
		{"after delete, scan interval over", nil, func(in *Input) { in.LastDeletion = now.Add(-10 * time.Second) }, false},
		{"after failure", nil, func(in *Input) { in.LastFailure = now.Add(-2 * time.Minute) }, true},
		{"after failure, over", nil, func(in *Input) { in.LastFailure = now.Add(-3 * time.Minute) }, false},
		{"schedulable pending pods", nil, func(in *Input) { in.SchedulablePending = true }, true},
		{"schedulable pending pods ignored", func(c *Config) { c.IgnoreSchedulablePods = true }, func(in *Input) { in.SchedulablePending = true }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.UnneededTime = 0
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			in := new(world).node("a", "g").node("b", "g").input(now)
			if tc.in != nil {
				tc.in(&in)
			}
			plan, err := mustPlanner(t, cfg).Plan(in)
			if err != nil {
				t.Fatal(err)
			}
			if (plan.Skipped != "") != tc.reason {
				t.Fatalf("skipped = %q, want a reason: %v", plan.Skipped, tc.reason)
			}
			if len(plan.Unneeded) != 2 {
				t.Errorf("unneeded = %v; unneeded nodes are tracked even when skipped", names(plan.Unneeded))
			}
			if want := 2; !tc.reason && len(plan.Empty) != want {
				t.Errorf("empty = %v, want %d", names(plan.Empty), want)
			}
		})
	}
}

func TestPlanLimits(t *testing.T) {
	w := new(world).node("big", "g", fixture.WithCapacity("cpu", "100"), fixture.WithCapacity("pods", "500")).pod("x", "big", "60")
	for i := range 6 {
		w.node(fmt.Sprintf("e%d", i), "g")
	}
	for i := range 4 {
		n := fmt.Sprintf("n%d", i)
		w.node(n, "g").pod("p"+n, n, "1")
	}
	tests := []struct {
		name               string
		bulk, par, drain   int
		inFlight           InFlight
		wantEmpty, wantDrn int
	}{
		{"bulk limit", 4, 10, 1, InFlight{}, 4, 1},
		{"parallelism caps both", 10, 5, 3, InFlight{}, 5, 0},
		{"drain parallelism", 10, 20, 3, InFlight{}, 6, 3},
		{"in-flight drains count", 10, 20, 2, InFlight{NonEmpty: 2}, 6, 0},
		{"in-flight deletions count", 10, 8, 2, InFlight{Empty: 4}, 4, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.UnneededTime = 0
			cfg.MaxEmptyBulkDelete, cfg.MaxScaleDownParallelism, cfg.MaxDrainParallelism = tc.bulk, tc.par, tc.drain
			in := w.input(t0)
			in.InFlight = tc.inFlight
			plan, err := mustPlanner(t, cfg).Plan(in)
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Empty) != tc.wantEmpty || len(plan.Drain) != tc.wantDrn {
				t.Fatalf("empty %v drain %v, want %d and %d", names(plan.Empty), names(plan.Drain), tc.wantEmpty, tc.wantDrn)
			}
			for _, c := range plan.Drain {
				if len(c.Pods) != 1 || c.Pods[0].Spec.NodeName != c.Node.Name {
					t.Errorf("drain %s evicts %v", c.Node.Name, c.Pods)
				}
			}
		})
	}
}

func TestPlanMinSizeCountsDeletions(t *testing.T) {
	w := new(world).node("a", "g").node("b", "g").node("c", "g")
	w.groups[0].MinSize = 1
	w.groups[0].Deleting = 1
	plan := runPlan(t, w, testConfig())
	if got := names(plan.Unneeded); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("unneeded = %v, want [a]", got)
	}
}

// S8: a pending pod the loop placed on i-2 keeps i-2; the empty i-1 goes
// although scale-up is in progress elsewhere.
func TestPlanPlacedPendingPods(t *testing.T) {
	w := new(world).node("i-1", "ng-1", fixture.WithCapacity("cpu", "1"), fixture.WithCapacity("memory", "8Gi")).
		node("i-2", "ng-2", fixture.WithCapacity("memory", "32Gi"))
	w.groups = append(w.groups, Group{ID: "ng-3", TargetSize: 1})
	pending := fixture.Pod("p2", fixture.WithRequests("cpu", "3", "memory", "10Gi"))
	cfg := testConfig()
	cfg.UtilizationThreshold = 1
	cfg.IgnoreSchedulablePods = true
	cfg.UnneededTime = 0
	in := w.input(t0)
	in.Placed = []simulator.Placement{{Pod: pending, NodeName: "i-2"}}
	in.SchedulablePending = true
	plan, err := mustPlanner(t, cfg).Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(plan.Empty); !slices.Equal(got, []string{"i-1"}) {
		t.Fatalf("empty = %v, want [i-1]; blocked %v", got, plan.Blocked)
	}
	if r := reasons(plan.Blocked)["i-2"]; r != ReasonBarePod {
		t.Errorf("i-2 blocked by %q, want the pending bare pod", r)
	}
}

func TestConfigValidate(t *testing.T) {
	bad := []func(*Config){
		func(c *Config) { c.UtilizationThreshold = 1.5 },
		func(c *Config) { c.UnneededTime = -1 },
		func(c *Config) { c.UnreadyTime = -1 },
		func(c *Config) { c.DelayAfterDelete = -1 },
		func(c *Config) { c.DelayAfterFailure = -1 },
		func(c *Config) { c.MaxEmptyBulkDelete = 0 },
		func(c *Config) { c.MaxScaleDownParallelism = 0 },
		func(c *Config) { c.MaxDrainParallelism = 0 },
	}
	for i, f := range bad {
		c := Default()
		f(&c)
		if _, err := NewPlanner(c); err == nil {
			t.Errorf("case %d: accepted", i)
		}
	}
	if _, err := NewPlanner(Default()); err != nil {
		t.Fatal(err)
	}
}
