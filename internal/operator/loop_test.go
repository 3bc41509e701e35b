package operator

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/utils/clock"
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
			trigger := NewTrigger()
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
				trigger.Raise(clk.Now())
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
	for _, l := range []Loop{{Interval: time.Second}, {Clock: clk}, {Clock: clk, Interval: -time.Second},
		{Clock: clk, Interval: time.Second, Again: func(time.Time) bool { return true }},
		{Clock: clk, Interval: time.Second, AfterRun: true, Batch: Batch{Idle: time.Second}}} {
		if err := l.Run(context.Background(), func(context.Context) {}); err == nil {
			t.Errorf("%+v accepted", l)
		}
	}
}

// TestLoopAfterRun runs the node autoscaler's pacing in a synctest bubble,
// where time moves only when every goroutine waits: the interval counts
// from each run's end, a run that asks for another gets it at once, and
// one during which the trigger was raised waits for the rest of the batch
// (its maximum counted from that raise).
func TestLoopAfterRun(t *testing.T) {
	const interval, runTime = 10 * time.Second, 2 * time.Second
	batch := Batch{Idle: 300 * time.Millisecond, Max: time.Second}
	tests := []struct {
		name string
		// again is what Again answers after each run, in turn.
		again []bool
		// raiseAt raises the trigger this long into the run of that index.
		raiseAt map[int]time.Duration
		// want are the runs' start times from the loop's start.
		want []time.Duration
	}{
		{name: "interval from the end of each run", want: []time.Duration{0, 12 * time.Second, 24 * time.Second}},
		{name: "again at once", again: []bool{true, false}, want: []time.Duration{0, 2 * time.Second, 14 * time.Second}},
		{name: "again takes in what was raised during the run", again: []bool{true, false}, raiseAt: map[int]time.Duration{0: 1500 * time.Millisecond},
			// raised at 1.5 s, run ends at 2 s: the next run starts at once
			// and covers the raise (no extra run after it).
			want: []time.Duration{0, 2 * time.Second, 14 * time.Second}},
		{name: "a raise during a run waits only the rest of its batch", raiseAt: map[int]time.Duration{0: 1900 * time.Millisecond},
			// raised at 1.9 s in a run that asks for no other: the batch
			// starts when the run ends (2 s) and its idle time ends it.
			want: []time.Duration{0, 2300 * time.Millisecond, 14300 * time.Millisecond}},
		{name: "raise between runs starts a batched run", raiseAt: map[int]time.Duration{0: 5 * time.Second},
			// raised 3 s after the first run ended (5 s): runs at 5.3 s.
			want: []time.Duration{0, 5300 * time.Millisecond, 17300 * time.Millisecond}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				trigger := NewTrigger()
				begin := time.Now()
				var starts []time.Duration
				var lastStart time.Time
				loop := Loop{Clock: clock.RealClock{}, Interval: interval, Immediate: true, AfterRun: true, Trigger: trigger, Batch: batch,
					Again: func(start time.Time) bool {
						if !start.Equal(lastStart) {
							t.Errorf("Again got start %v, want %v", start, lastStart)
						}
						i := len(starts) - 1
						return i < len(tc.again) && tc.again[i]
					}}
				done := make(chan error, 1)
				go func() {
					done <- loop.Run(ctx, func(context.Context) {
						lastStart = time.Now()
						starts = append(starts, time.Since(begin))
						if len(starts) == len(tc.want) {
							cancel()
							return
						}
						if at, ok := tc.raiseAt[len(starts)-1]; ok {
							go func() {
								time.Sleep(at)
								trigger.Raise(time.Now())
							}()
						}
						time.Sleep(runTime)
					})
				}()
				if err := <-done; err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(starts, tc.want) {
					t.Errorf("runs started at %v, want %v", starts, tc.want)
				}
			})
		})
	}
}
