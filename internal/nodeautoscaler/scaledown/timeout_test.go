package scaledown

import (
	"fmt"
	"testing"
	"time"

	"github.com/kscale/kscale/internal/fixture"
)

// TestPlanSimulationTimeout checks --scale-down-simulation-timeout: the
// candidates left when the budget runs out are not simulated this round
// (NotUnneededOtherReason, saying why), those simulated before it are
// unneeded, and a clock that stands still (the simulator's) never runs out.
func TestPlanSimulationTimeout(t *testing.T) {
	const nodes = 12
	w := new(world)
	for i := range nodes {
		w.node(fmt.Sprintf("n%02d", i), "g")
	}
	tests := []struct {
		name          string
		clock         func() *fixture.StepClock
		wantUnneeded  func(int) bool
		wantTimedOut  func(int) bool
		wantSimulated string
	}{
		{"clock stands still", func() *fixture.StepClock { return &fixture.StepClock{At: t0} },
			func(n int) bool { return n == nodes }, func(n int) bool { return n == 0 }, "all"},
		{"slow simulation", func() *fixture.StepClock { return &fixture.StepClock{At: t0, Step: time.Second} },
			func(n int) bool { return n > 0 && n < nodes }, func(n int) bool { return n > 0 }, "some"},
		{"budget gone at once", func() *fixture.StepClock { return &fixture.StepClock{At: t0, Step: time.Hour} },
			func(n int) bool { return n == 0 }, func(n int) bool { return n == nodes }, "none"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.UnneededTime, cfg.SimulationTimeout, cfg.Clock = 0, 2500*time.Millisecond, tc.clock()
			plan, err := mustPlanner(t, cfg).Plan(w.input(t0))
			if err != nil {
				t.Fatal(err)
			}
			timedOut := 0
			for _, b := range plan.Blocked {
				if b.Reason != ReasonNotExamined || b.Detail != timeoutDetail {
					t.Fatalf("%s blocked: %s", b.Node, b)
				}
				timedOut++
			}
			if !tc.wantUnneeded(len(plan.Unneeded)) || !tc.wantTimedOut(timedOut) || len(plan.Unneeded)+timedOut != nodes {
				t.Fatalf("%d unneeded, %d left for the timeout; want %s of %d simulated", len(plan.Unneeded), timedOut, tc.wantSimulated, nodes)
			}
		})
	}
	// The budget is per round: a later round simulates again.
	cfg := testConfig()
	cfg.UnneededTime, cfg.SimulationTimeout, cfg.Clock = 0, 2500*time.Millisecond, &fixture.StepClock{At: t0, Step: time.Second}
	p := mustPlanner(t, cfg)
	for round := range 3 {
		plan, err := p.Plan(w.input(t0.Add(time.Duration(round) * 10 * time.Second)))
		if err != nil {
			t.Fatal(err)
		}
		if len(plan.Unneeded) == 0 {
			t.Fatalf("round %d simulated no candidate", round)
		}
	}
}
