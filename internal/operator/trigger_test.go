package operator

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/utils/clock"
)

func TestBatchWait(t *testing.T) {
	const idle, maxWait = 300 * time.Millisecond, time.Second
	on := Batch{Idle: idle, Max: maxWait}
	tests := []struct {
		name string
		// earlier is how long before the wait the first raise came.
		earlier time.Duration
		// raises are the times after the wait's start at which more
		// events come.
		raises []time.Duration
		batch  Batch
		want   time.Duration
		wantN  int
	}{
		{name: "lone event", batch: on, want: idle},
		{name: "burst within the idle time", raises: []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 250 * time.Millisecond},
			batch: on, want: 250*time.Millisecond + idle, wantN: 3},
		{name: "steady stream hits the maximum", raises: []time.Duration{200 * time.Millisecond, 400 * time.Millisecond, 600 * time.Millisecond,
			800 * time.Millisecond, 1000 * time.Millisecond, 1200 * time.Millisecond},
			batch: on, want: maxWait, wantN: 4},
		{name: "gap longer than idle ends the wait", raises: []time.Duration{100 * time.Millisecond, 500 * time.Millisecond},
			batch: on, want: 100*time.Millisecond + idle, wantN: 1},
		{name: "maximum counts from the first event", earlier: 800 * time.Millisecond,
			raises: []time.Duration{100 * time.Millisecond, 150 * time.Millisecond}, batch: on, want: 200 * time.Millisecond, wantN: 2},
		{name: "first event older than the maximum", earlier: 2 * time.Second, raises: []time.Duration{100 * time.Millisecond}, batch: on},
		{name: "batching off", raises: []time.Duration{100 * time.Millisecond}, batch: Batch{}, want: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				trigger := NewTrigger()
				first := time.Now().Add(-tc.earlier)
				trigger.Raise(first)
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				go func() {
					start := time.Now()
					for _, at := range tc.raises {
						select {
						case <-time.After(at - time.Since(start)):
						case <-ctx.Done():
							return
						}
						trigger.Raise(time.Now())
						synctest.Wait()
					}
				}()
				<-trigger.ch
				got, n := tc.batch.wait(ctx, clock.RealClock{}, trigger, first)
				if got != tc.want || n != tc.wantN {
					t.Errorf("waited %v with %d later events, want %v with %d", got, n, tc.want, tc.wantN)
				}
				if !trigger.take().IsZero() && got > 0 {
					t.Error("the wait left its events in the trigger")
				}
			})
		})
	}
}

func TestBatchValidate(t *testing.T) {
	for _, tc := range []struct {
		b    Batch
		fail bool
	}{
		{Batch{}, false}, {Batch{Idle: 300 * time.Millisecond, Max: time.Second}, false},
		{Batch{Idle: time.Second, Max: time.Millisecond}, true}, {Batch{Idle: -1}, true},
	} {
		if err := tc.b.Validate(); (err != nil) != tc.fail {
			t.Errorf("%+v: Validate = %v, want failure %v", tc.b, err, tc.fail)
		}
	}
}

// TestTriggerKeepsFirstRaise: many raises are one, dated by the first,
// until taken.
func TestTriggerKeepsFirstRaise(t *testing.T) {
	trigger := NewTrigger()
	t0 := time.Unix(100, 0)
	trigger.Raise(t0)
	trigger.Raise(t0.Add(time.Second))
	if got := trigger.firstRaise(); !got.Equal(t0) || len(trigger.ch) != 1 {
		t.Fatalf("a raised trigger holds %v with %d signals, want %v with 1", got, len(trigger.ch), t0)
	}
	if got := trigger.take(); !got.Equal(t0) {
		t.Errorf("take = %v, want the first raise %v", got, t0)
	}
	if len(trigger.ch) != 0 || !trigger.firstRaise().IsZero() || !trigger.take().IsZero() {
		t.Error("a taken trigger still holds a raise")
	}
}
