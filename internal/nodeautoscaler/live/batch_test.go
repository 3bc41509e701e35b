package live

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/utils/clock"
)

func TestBatchWait(t *testing.T) {
	const idle, maxWait = 300 * time.Millisecond, time.Second
	tests := []struct {
		name string
		// signals are the times after the first signal at which more pods
		// turn unschedulable.
		signals []time.Duration
		batch   Batch
		want    time.Duration
		wantN   int
	}{
		{name: "lone pod", batch: Batch{Idle: idle, Max: maxWait}, want: idle},
		{name: "burst within the idle time", signals: []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 250 * time.Millisecond},
			batch: Batch{Idle: idle, Max: maxWait}, want: 250*time.Millisecond + idle, wantN: 3},
		{name: "steady stream hits the maximum", signals: []time.Duration{200 * time.Millisecond, 400 * time.Millisecond, 600 * time.Millisecond,
			800 * time.Millisecond, 1000 * time.Millisecond, 1200 * time.Millisecond},
			batch: Batch{Idle: idle, Max: maxWait}, want: maxWait, wantN: 4},
		{name: "gap longer than idle ends the wait", signals: []time.Duration{100 * time.Millisecond, 500 * time.Millisecond},
			batch: Batch{Idle: idle, Max: maxWait}, want: 100*time.Millisecond + idle, wantN: 1},
		{name: "batching off", signals: []time.Duration{100 * time.Millisecond}, batch: Batch{}, want: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				trigger := make(chan struct{}, 1)
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				go func() {
					start := time.Now()
					for _, at := range tc.signals {
						select {
						case <-time.After(at - time.Since(start)):
						case <-ctx.Done():
							return
						}
						select {
						case trigger <- struct{}{}:
						case <-ctx.Done():
							return
						}
					}
				}()
				got, n := tc.batch.wait(ctx, clock.RealClock{}, trigger)
				if got != tc.want || n != tc.wantN {
					t.Errorf("waited %v with %d later signals, want %v with %d", got, n, tc.want, tc.wantN)
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
		{Batch{}, false}, {Batch{Idle: DefaultBatchIdle, Max: DefaultBatchMax}, false},
		{Batch{Idle: time.Second, Max: time.Millisecond}, true}, {Batch{Idle: -1}, true},
	} {
		if err := tc.b.Validate(); (err != nil) != tc.fail {
			t.Errorf("%+v: Validate = %v, want failure %v", tc.b, err, tc.fail)
		}
	}
}
