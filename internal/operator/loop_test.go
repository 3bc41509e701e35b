package operator

import (
	"context"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

// TestLoopRunsAtStartTicksAndTriggers steps a fake clock and counts runs.
func TestLoopRunsAtStartTicksAndTriggers(t *testing.T) {
	tests := []struct {
		name      string
		immediate bool
		ticks     int
		triggers  int
		want      int
	}{
		{name: "tick then run", ticks: 2, want: 2},
		{name: "run then tick", immediate: true, ticks: 2, want: 3},
		{name: "triggers run at once", triggers: 2, want: 2},
		{name: "both", immediate: true, ticks: 1, triggers: 1, want: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clocktesting.NewFakeClock(time.Unix(0, 0))
			trigger := make(chan struct{})
			runs := make(chan struct{})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			loop := Loop{Clock: clk, Interval: time.Minute, Immediate: tt.immediate, Trigger: trigger}
			go func() { done <- loop.Run(ctx, func(context.Context) { runs <- struct{}{} }) }()
			got := 0
			if tt.immediate {
				<-runs
				got++
			}
			for range tt.ticks {
				waitForWaiters(t, clk)
				clk.Step(time.Minute)
				<-runs
				got++
			}
			for range tt.triggers {
				trigger <- struct{}{}
				<-runs
				got++
			}
			cancel()
			if err := <-done; err != nil {
				t.Fatalf("Run: %v", err)
			}
			if got != tt.want {
				t.Errorf("runs %d, want %d", got, tt.want)
			}
		})
	}
}

// waitForWaiters polls until the loop's ticker exists.
func waitForWaiters(t *testing.T, clk *clocktesting.FakeClock) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !clk.HasWaiters() {
		if time.Now().After(deadline) {
			t.Fatal("the loop never started its ticker")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestLoopValidate(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(0, 0))
	for _, l := range []Loop{{Interval: time.Second}, {Clock: clk}, {Clock: clk, Interval: -time.Second}} {
		if err := l.Run(context.Background(), func(context.Context) {}); err == nil {
			t.Errorf("%+v accepted", l)
		}
	}
}
