package operator

import (
	"context"
	"errors"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// Trigger tells a Loop that something happened that its next run should
// handle before the interval ends, and remembers when the first such event
// since the loop last took the trigger happened. Raise never blocks; many
// raises between two runs count as one.
type Trigger struct {
	ch    chan struct{}
	mu    sync.Mutex
	first time.Time
}

// NewTrigger returns a Trigger with nothing raised.
func NewTrigger() *Trigger { return &Trigger{ch: make(chan struct{}, 1)} }

// Raise records an event at now.
func (t *Trigger) Raise(now time.Time) {
	t.mu.Lock()
	if t.first.IsZero() {
		t.first = now
	}
	t.mu.Unlock()
	select {
	case t.ch <- struct{}{}:
	default:
	}
}

// firstRaise returns when the first event since the last take happened
// (zero when none), without taking it.
func (t *Trigger) firstRaise() time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.first
}

// take clears the trigger and returns when its first event since the last
// take happened (zero when none).
func (t *Trigger) take() time.Time {
	select {
	case <-t.ch:
	default:
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	first := t.first
	t.first = time.Time{}
	return first
}

// Batch is how long a run that a Trigger starts waits for more events, so
// that events that come together (the pods of a burst turning
// unschedulable one after another) get one run: until no event came for
// Idle, but no longer than Max after the first event.
type Batch struct {
	// Idle ends the wait when no event came for this long; 0 disables
	// batching (a triggered run starts at once).
	Idle time.Duration
	// Max bounds the wait from the first event on; at least Idle.
	Max time.Duration
}

// Validate reports a negative duration or a Max shorter than Idle.
func (b Batch) Validate() error {
	switch {
	case b.Idle < 0 || b.Max < 0:
		return errors.New("batch durations must not be negative")
	case b.Idle > 0 && b.Max < b.Idle:
		return errors.New("the batch's maximum must not be shorter than its idle time")
	}
	return nil
}

// wait waits as the rule says for the events of t, the first of which
// happened at first (zero: now), then clears t. It returns how long it
// waited and how many events it took in while waiting; it returns early
// when ctx ends.
func (b Batch) wait(ctx context.Context, clk clock.WithTicker, t *Trigger, first time.Time) (time.Duration, int) {
	start := clk.Now()
	defer t.take()
	if b.Idle <= 0 {
		return 0, 0
	}
	if first.IsZero() || first.After(start) {
		first = start
	}
	left := b.Max - start.Sub(first)
	if left <= 0 {
		return 0, 0
	}
	deadline := clk.NewTimer(left)
	defer deadline.Stop()
	events := 0
	for {
		idle := clk.NewTimer(b.Idle)
		select {
		case <-ctx.Done():
			idle.Stop()
			return clk.Since(start), events
		case <-deadline.C():
			idle.Stop()
			return clk.Since(start), events
		case <-idle.C():
			return clk.Since(start), events
		case <-t.ch:
			idle.Stop()
			events++
		}
	}
}
