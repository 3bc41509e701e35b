package scaledown

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestAdditional(t *testing.T) {
	tests := []struct {
		name                string
		count               int
		ratio               float64
		minCount            int
		found, rest, nodes  int
		wantCount, wantPool int
	}{
		{name: "defaults, small cluster: the min count", count: 30, ratio: 0.1, minCount: 50, rest: 100, nodes: 120, wantCount: 30, wantPool: 50},
		{name: "defaults, big cluster: the ratio, rounded up", count: 30, ratio: 0.1, minCount: 50, rest: 900, nodes: 1001, wantCount: 30, wantPool: 101},
		{name: "found among the last round's", count: 30, ratio: 0.1, minCount: 50, found: 25, rest: 100, nodes: 120, wantCount: 5, wantPool: 50},
		{name: "enough found already", count: 30, ratio: 0.1, minCount: 50, found: 31, rest: 100, nodes: 120, wantCount: -1, wantPool: 50},
		{name: "capped by the rest", count: 30, ratio: 1, minCount: 50, rest: 7, nodes: 120, wantCount: 7, wantPool: 7},
		{name: "ratio 1: every node", count: 2000, ratio: 1, rest: 2000, nodes: 2000, wantCount: 2000, wantPool: 2000},
		{name: "zero pool", count: 2000, rest: 2000, nodes: 2000, wantCount: 2000, wantPool: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Config{NonEmptyCandidatesCount: tt.count, CandidatesPoolRatio: tt.ratio, CandidatesPoolMinCount: tt.minCount}
			count, pool := c.additional(tt.found, tt.rest, tt.nodes)
			if count != tt.wantCount || pool != tt.wantPool {
				t.Errorf("additional = %d from %d, want %d from %d", count, pool, tt.wantCount, tt.wantPool)
			}
		})
	}
}

// limitsWorld is a kept node "dest" (62.5% used, 1.5 CPU free), an empty
// node "e1" and six nodes c1..c6 with one 100m pod each: each can go.
func limitsWorld() *world {
	w := (&world{}).node("dest", "g").pod("d", "dest", "2500m").node("e1", "g")
	for _, n := range []string{"c1", "c2", "c3", "c4", "c5", "c6"} {
		w.node(n, "g").pod("p-"+n, n, "100m")
	}
	return w
}

func TestPlanCandidateLimits(t *testing.T) {
	all := []string{"e1", "c1", "c2", "c3", "c4", "c5", "c6"}
	tests := []struct {
		name           string
		count          int
		ratio          float64
		minCount       int
		unneeded       []string // both rounds
		notExamined    []string
		secondUnneeded []string // when different in the second round
	}{
		{name: "limits off", count: 0, unneeded: all},
		{name: "count 2: the empty node and two more", count: 2, minCount: 3,
			unneeded: []string{"e1", "c1", "c2"}, notExamined: []string{"c3", "c4", "c5", "c6"}},
		{name: "pool of 3 (min count) caps a count of 5", count: 5, minCount: 3,
			unneeded: []string{"e1", "c1", "c2", "c3"}, notExamined: []string{"c4", "c5", "c6"},
			// The three found stay candidates; two more come from the next pool.
			secondUnneeded: []string{"e1", "c1", "c2", "c3", "c4", "c5"}},
		{name: "pool by ratio: ceil(8 * 0.45) = 4", count: 30, ratio: 0.45, minCount: 1,
			unneeded: []string{"e1", "c1", "c2", "c3", "c4"}, notExamined: []string{"c5", "c6"},
			secondUnneeded: all},
		{name: "zero pool: only the empty node", count: 30,
			unneeded: []string{"e1"}, notExamined: []string{"c1", "c2", "c3", "c4", "c5", "c6"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.NonEmptyCandidatesCount, cfg.CandidatesPoolRatio, cfg.CandidatesPoolMinCount = tt.count, tt.ratio, tt.minCount
			p := mustPlanner(t, cfg)
			w := limitsWorld()
			plan, err := p.Plan(w.input(t0))
			if err != nil {
				t.Fatal(err)
			}
			if got := names(plan.Unneeded); !slices.Equal(got, tt.unneeded) {
				t.Errorf("first round: unneeded %v, want %v", got, tt.unneeded)
			}
			var notExamined []string
			for n, r := range reasons(plan.Blocked) {
				if r == ReasonNotExamined {
					notExamined = append(notExamined, n)
				}
			}
			slices.Sort(notExamined)
			if !slices.Equal(notExamined, tt.notExamined) {
				t.Errorf("first round: not examined %v, want %v", notExamined, tt.notExamined)
			}
			want := tt.unneeded
			if tt.secondUnneeded != nil {
				want = tt.secondUnneeded
			}
			plan, err = p.Plan(w.input(t0.Add(time.Minute)))
			if err != nil {
				t.Fatal(err)
			}
			if got := names(plan.Unneeded); !slices.Equal(got, want) {
				t.Errorf("second round: unneeded %v, want %v", got, want)
			}
			// The nodes found in the first round keep their start.
			for _, c := range plan.Unneeded {
				if slices.Contains(tt.unneeded, c.Node.Name) && !c.UnneededSince.Equal(t0) {
					t.Errorf("%s unneeded since %v, want %v", c.Node.Name, c.UnneededSince, t0)
				}
			}
		})
	}
}

// TestRecheckTimeout: c1's pod (1.8 CPU) fits nowhere until a second
// node with room joins; the planner simulates c1 again only after the
// recheck timeout.
func TestRecheckTimeout(t *testing.T) {
	tests := []struct {
		name    string
		timeout time.Duration
		want    []Reason // c1's reason at 0, 1m, 5m; "" means unneeded
	}{
		{name: "default 5m", timeout: 5 * time.Minute, want: []Reason{ReasonNoPlaceToMove, ReasonRecentlyUnremovable, ""}},
		{name: "0: every round", timeout: 0, want: []Reason{ReasonNoPlaceToMove, "", ""}},
		{name: "10m", timeout: 10 * time.Minute, want: []Reason{ReasonNoPlaceToMove, ReasonRecentlyUnremovable, ReasonRecentlyUnremovable}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.UnremovableRecheckTimeout = tt.timeout
			p := mustPlanner(t, cfg)
			w := (&world{}).node("dest", "g").pod("d", "dest", "2500m").node("c1", "g").pod("big", "c1", "1800m")
			for i, at := range []time.Duration{0, time.Minute, 5 * time.Minute} {
				if i == 1 {
					w.node("dest2", "g").pod("d2", "dest2", "2100m")
				}
				plan, err := p.Plan(w.input(t0.Add(at)))
				if err != nil {
					t.Fatal(err)
				}
				got := reasons(plan.Blocked)
				if got["dest"] != ReasonHighUtilization {
					t.Errorf("at %v: dest %q, want HighUtilization (never rechecked later)", at, got["dest"])
				}
				if got["c1"] != tt.want[i] {
					t.Errorf("at %v: c1 %q, want %q (blocked: %v)", at, got["c1"], tt.want[i], maps.Collect(maps.All(got)))
				}
			}
		})
	}
}

func TestConfigValidateLimits(t *testing.T) {
	tests := []struct {
		name string
		mut  func(*Config)
		flag string
	}{
		{"ratio above 1", func(c *Config) { c.CandidatesPoolRatio = 1.5 }, "--scale-down-candidates-pool-ratio"},
		{"negative ratio", func(c *Config) { c.CandidatesPoolRatio = -0.1 }, "--scale-down-candidates-pool-ratio"},
		{"negative min count", func(c *Config) { c.CandidatesPoolMinCount = -1 }, "--scale-down-candidates-pool-min-count"},
		{"negative recheck timeout", func(c *Config) { c.UnremovableRecheckTimeout = -time.Second }, "--unremovable-node-recheck-timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Default()
			tt.mut(&c)
			err := c.Validate()
			if err == nil || !strings.HasPrefix(err.Error(), tt.flag+":") {
				t.Errorf("Validate() = %v, want an error naming %s", err, tt.flag)
			}
		})
	}
	c := Default()
	c.NonEmptyCandidatesCount = -1 // turns the limits off
	if err := c.Validate(); err != nil {
		t.Errorf("a negative count: %v", err)
	}
}
