package operator

import (
	"context"
	"errors"
	"time"

	"k8s.io/utils/clock"
)

// Loop paces a component's loop: once at start (Immediate), then at every
// tick of Interval, and at once when Trigger fires.
type Loop struct {
	// Clock ticks the interval; required (the real clock in production, a
	// fake one in tests).
	Clock clock.WithTicker
	// Interval is the time between ticks; it must be positive.
	Interval time.Duration
	// Immediate runs once at start, before the first tick.
	Immediate bool
	// Trigger, when it fires, starts a run at once; the ticks go on as
	// before. Nil: only ticks.
	Trigger <-chan struct{}
}

// Validate reports a missing clock or a bad interval.
func (l Loop) Validate() error {
	switch {
	case l.Clock == nil:
		return errors.New("loop: a clock is required")
	case l.Interval <= 0:
		return errors.New("loop: the interval must be positive")
	}
	return nil
}

// Run calls once as the Loop says until ctx ends; it returns nil then. A
// run is never interrupted by a tick: ticks that pass during a run are
// dropped but one, as a time.Ticker drops them.
func (l Loop) Run(ctx context.Context, once func(ctx context.Context)) error {
	if err := l.Validate(); err != nil {
		return err
	}
	ticker := l.Clock.NewTicker(l.Interval)
	defer ticker.Stop()
	if l.Immediate {
		once(ctx)
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C():
		case <-l.Trigger:
		}
		if ctx.Err() != nil {
			return nil
		}
		once(ctx)
	}
}
