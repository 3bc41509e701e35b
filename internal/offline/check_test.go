package offline

import (
	"fmt"
	"testing"
	"time"

	"github.com/kscale/kscale/internal/scenario"
)

func ptr(v int) *int { return &v }

func dur(v time.Duration) *scenario.Duration { return &scenario.Duration{Duration: v} }

// TestChecks evaluates each expectation kind against a fixed result.
func TestChecks(t *testing.T) {
	res := &Result{
		Events: []Event{
			{At: 0, Type: "ScaleUp", Group: "a", Delta: 2},
			{At: time.Minute, Type: "ScaleUp", Group: "a", Delta: 1},
			{At: time.Minute, Type: "NotTriggerScaleUp", Reason: "web", Message: "b: max size reached"},
			{At: 2 * time.Minute, Type: "BackoffStarted", Group: "b", Reason: "timeout"},
			{At: 3 * time.Minute, Type: "ScaleDownFailed", Group: "a", Reason: "EvictionFailed", Message: "pod default/web-1 would violate its budget"},
		},
		Samples: []Sample{
			{At: 0, Groups: map[string]GroupSample{"a": {Target: 2, Nodes: 0}}, Zones: map[string]int{"z1": 1}, Unavailable: map[string]int{"web": 3}},
			{At: time.Minute, Groups: map[string]GroupSample{"a": {Target: 3, Nodes: 2, Ready: 1}}, Zones: map[string]int{"z1": 2, "z2": 1}, Unavailable: map[string]int{"web": 1}},
			{At: 2 * time.Minute, Groups: map[string]GroupSample{"a": {Target: 3, Nodes: 3, Ready: 3}}, Zones: map[string]int{"z1": 2, "z2": 1}, Unavailable: map[string]int{"web": 2}},
		},
	}
	end := 3 * time.Minute
	tests := []struct {
		name string
		e    scenario.Expectation
		ok   bool
	}{
		{"action any", scenario.Expectation{Action: &scenario.ActionExpectation{ActionMatch: scenario.ActionMatch{Type: "ScaleUp"}}}, true},
		{"action count", scenario.Expectation{Action: &scenario.ActionExpectation{ActionMatch: scenario.ActionMatch{Type: "ScaleUp"}, Bounds: scenario.Bounds{Count: ptr(2)}}}, true},
		{"action atMost held", scenario.Expectation{Action: &scenario.ActionExpectation{ActionMatch: scenario.ActionMatch{Type: "ScaleUp", Group: "a"}, Bounds: scenario.Bounds{AtMost: ptr(2)}}}, true},
		{"action atMost broken", scenario.Expectation{Action: &scenario.ActionExpectation{ActionMatch: scenario.ActionMatch{Type: "ScaleUp"}, Bounds: scenario.Bounds{AtMost: ptr(1)}}}, false},
		{"action atLeast in window", scenario.Expectation{Action: &scenario.ActionExpectation{ActionMatch: scenario.ActionMatch{Type: "ScaleUp"},
			Window: scenario.Window{From: dur(30 * time.Second)}, Bounds: scenario.Bounds{AtLeast: ptr(2)}}}, false},
		{"event reason in message", scenario.Expectation{Event: &scenario.EventExpectation{Type: "NotTriggerScaleUp", Reason: "max size"}}, true},
		{"event reason in reason", scenario.Expectation{Event: &scenario.EventExpectation{Type: "ScaleDownFailed", Group: "a", Reason: "EvictionFailed", Bounds: scenario.Bounds{Count: ptr(1)}}}, true},
		{"event wrong reason", scenario.Expectation{Event: &scenario.EventExpectation{Type: "NotTriggerScaleUp", Reason: "in backoff"}}, false},
		{"event wrong group", scenario.Expectation{Event: &scenario.EventExpectation{Type: "BackoffStarted", Group: "a"}}, false},
		{"event absent", scenario.Expectation{Event: &scenario.EventExpectation{Type: "BackoffCleared", Bounds: scenario.Bounds{Count: ptr(0)}}}, true},
		{"event at", scenario.Expectation{Event: &scenario.EventExpectation{Type: "BackoffStarted", At: dur(2 * time.Minute)}}, true},
		{"event outside window", scenario.Expectation{Event: &scenario.EventExpectation{Type: "BackoffStarted", Window: scenario.Window{To: dur(time.Minute)}}}, false},
		{"unavailable whole run", scenario.Expectation{MaxUnavailable: &scenario.UnavailableExpectation{Workload: "web", AtMost: ptr(2)}}, false},
		{"unavailable after start", scenario.Expectation{MaxUnavailable: &scenario.UnavailableExpectation{Workload: "web", Window: scenario.Window{From: dur(time.Minute)}, AtMost: ptr(2)}}, true},
		{"unavailable tight", scenario.Expectation{MaxUnavailable: &scenario.UnavailableExpectation{Workload: "web", Window: scenario.Window{From: dur(time.Minute)}, AtMost: ptr(1)}}, false},
		{"unavailable between ticks", scenario.Expectation{MaxUnavailable: &scenario.UnavailableExpectation{Workload: "web", Window: scenario.Window{From: dur(30 * time.Second), To: dur(40 * time.Second)}, AtMost: ptr(2)}}, false},
		{"zone count", scenario.Expectation{ZoneNodes: &scenario.ZoneExpectation{Zone: "z1", Bounds: scenario.Bounds{Count: ptr(2)}}}, true},
		{"zone at start", scenario.Expectation{ZoneNodes: &scenario.ZoneExpectation{Zone: "z2", At: dur(0), Bounds: scenario.Bounds{AtLeast: ptr(1)}}}, false},
		{"zone unknown", scenario.Expectation{ZoneNodes: &scenario.ZoneExpectation{Zone: "z3", Bounds: scenario.Bounds{AtMost: ptr(0)}}}, true},
		{"group registered", scenario.Expectation{Group: &scenario.GroupExpectation{Name: "a", At: dur(time.Minute), Registered: ptr(2), Ready: ptr(1), Target: ptr(3)}}, true},
		{"group registered wrong", scenario.Expectation{Group: &scenario.GroupExpectation{Name: "a", Registered: ptr(2)}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := res.check(tt.e, end)
			if c.OK != tt.ok {
				t.Fatalf("ok %v, want %v: %s: %s", c.OK, tt.ok, c.What, c.Detail)
			}
			if !c.OK && c.Detail == "" {
				t.Fatalf("failed check without detail: %s", c.What)
			}
		})
	}
}

// TestWorldSamplesForChecks runs a world and checks the sampled
// unavailable pods, zone node counts and registered nodes through
// expectations that hold and their tightened twins that must fail.
func TestWorldSamplesForChecks(t *testing.T) {
	res, scn := runText(t, `apiVersion: kscale.dev/v1alpha1
kind: Scenario
duration: 6m
autoscaler: {scale-down-enabled: false}
nodeGroups:
  - {name: a, max: 5, resources: {cpu: "4", memory: 16Gi}, zone: z1, bootTime: 2m}
  - {name: b, max: 5, resources: {cpu: "4", memory: 16Gi}, zone: z2, bootTime: 2m}
nodes:
  - {group: a}
workloads:
  - {name: web, kind: ReplicaSet, replicas: 4, scheduled: 2, startupTime: 1m, pod: {requests: {cpu: "2"}, nodeSelector: {topology.kubernetes.io/zone: z1}}}
expect:
  - maxUnavailable: {workload: web, from: 0s, to: 0s, atMost: 4}
  - maxUnavailable: {workload: web, from: 0s, to: 0s, atMost: 3}
  - maxUnavailable: {workload: web, from: 1m, to: 2m50s, atMost: 2}
  - maxUnavailable: {workload: web, from: 1m, to: 2m50s, atMost: 1}
  - maxUnavailable: {workload: web, from: 3m10s, atMost: 0}
  - zoneNodes: {zone: z1, at: 1m, count: 1}
  - zoneNodes: {zone: z1, count: 2}
  - zoneNodes: {zone: z2, atMost: 0}
  - zoneNodes: {zone: z1, atLeast: 3}
  - group: {name: a, at: 1m, target: 2, registered: 1, ready: 1}
  - group: {name: a, target: 2, registered: 2, ready: 2}
  - group: {name: a, at: 1m, registered: 2}
`)
	want := []bool{true, false, true, false, true, true, true, true, false, true, true, false}
	checks := res.Checks(scn)
	if len(checks) != len(want) {
		t.Fatalf("%d checks, want %d: %+v", len(checks), len(want), checks)
	}
	for i, c := range checks {
		if c.OK != want[i] {
			t.Errorf("line %d: %s: ok %v, want %v (%s)", c.Line, c.What, c.OK, want[i], c.Detail)
		}
	}
}

// TestSeedFeedsTheRandomExpander: the file's seed changes the random
// expander's choice among equal groups, and the same seed repeats it.
func TestSeedFeedsTheRandomExpander(t *testing.T) {
	chosen := func(seed int) string {
		res, _ := runText(t, fmt.Sprintf(`apiVersion: kscale.dev/v1alpha1
kind: Scenario
duration: 10s
seed: %d
autoscaler: {expander: random}
nodeGroups:
  - {name: a, max: 5, resources: {cpu: "4", memory: 16Gi}}
  - {name: b, max: 5, resources: {cpu: "4", memory: 16Gi}}
  - {name: c, max: 5, resources: {cpu: "4", memory: 16Gi}}
  - {name: d, max: 5, resources: {cpu: "4", memory: 16Gi}}
workloads:
  - {name: p, kind: Pods, replicas: 1, pod: {requests: {cpu: "1"}}}
`, seed))
		for _, e := range res.Events {
			if e.Type == "ScaleUp" {
				return e.Group
			}
		}
		t.Fatalf("seed %d: no scale-up", seed)
		return ""
	}
	seen := map[string]bool{}
	for seed := range 8 {
		g := chosen(seed)
		if again := chosen(seed); again != g {
			t.Fatalf("seed %d chose %s, then %s", seed, g, again)
		}
		seen[g] = true
	}
	if len(seen) < 2 {
		t.Fatalf("8 seeds all chose %v", seen)
	}
}
