package operator

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// Loop paces a component's loop: once at start (Immediate), then every
// Interval, and early when Trigger is raised (after Batch's wait).
type Loop struct {
	// Clock ticks the interval; required (the real clock in production, a
	// fake one in tests).
	Clock clock.WithTicker
	// Interval is the time between runs; it must be positive.
	Interval time.Duration
	// Immediate runs once at start, before the first interval.
	Immediate bool
	// AfterRun counts each Interval from the end of the run before it, as
	// upstream cluster-autoscaler's --scan-interval does; otherwise the
	// runs follow a fixed tick, and ticks that pass during a run are
	// dropped but one, as a time.Ticker drops them.
	AfterRun bool
	// Trigger, when raised, starts a run before the interval ends (with
	// AfterRun after Batch's wait). Nil: only the interval starts runs.
	Trigger *Trigger
	// Batch (with AfterRun) is how long a triggered run waits for more
	// raises; its Max counts from the first raise, so a raise that came
	// during a run waits only what is left of it.
	Batch Batch
	// Again (with AfterRun), given the start of the run that just ended,
	// reports whether the next run starts at once (upstream's frequent
	// loops after a productive loop), raises during that run included: a
	// raise that came while a run ran has waited that long already. Nil:
	// never at once.
	Again func(start time.Time) bool
}

// Validate reports a missing clock or a bad interval or batch.
func (l Loop) Validate() error {
	switch {
	case l.Clock == nil:
		return errors.New("loop: a clock is required")
	case l.Interval <= 0:
		return errors.New("loop: the interval must be positive")
	case !l.AfterRun && (l.Again != nil || l.Batch.Idle > 0):
		return errors.New("loop: Again and Batch need AfterRun")
	}
	if err := l.Batch.Validate(); err != nil {
		return fmt.Errorf("loop: %w", err)
	}
	return nil
}

// Run calls once as the Loop says until ctx ends; it returns nil then. A
// run is never interrupted.
func (l Loop) Run(ctx context.Context, once func(ctx context.Context)) error {
	if err := l.Validate(); err != nil {
		return err
	}
	if !l.AfterRun {
		return l.runTicking(ctx, once)
	}
	if !l.Immediate && !l.waitInterval(ctx) {
		return nil
	}
	for {
		start := l.Clock.Now()
		once(ctx)
		if !l.next(ctx, start) {
			return nil
		}
	}
}

// runTicking runs at a fixed tick and at once on every raise.
func (l Loop) runTicking(ctx context.Context, once func(ctx context.Context)) error {
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
		case <-l.trigger():
			l.Trigger.take()
		}
		if ctx.Err() != nil {
			return nil
		}
		once(ctx)
	}
}

// next waits after a run that started at start until the next run is
// due; false when ctx ended.
func (l Loop) next(ctx context.Context, start time.Time) bool {
	if l.Again != nil && l.Again(start) {
		if l.Trigger != nil {
			l.Trigger.take() // the next run covers what was raised meanwhile
		}
		klog.FromContext(ctx).V(1).Info("Loop runs again at once")
		return ctx.Err() == nil
	}
	return l.waitInterval(ctx)
}

// waitInterval waits for the interval or, with a Trigger, for a raise and
// its batch; false when ctx ended.
func (l Loop) waitInterval(ctx context.Context) bool {
	timer := l.Clock.NewTimer(l.Interval)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C():
		return true
	case <-l.trigger():
		return l.batch(ctx)
	}
}

// batch waits as Batch says for the raises that started with the first
// one the trigger holds.
func (l Loop) batch(ctx context.Context) bool {
	waited, more := l.Batch.wait(ctx, l.Clock, l.Trigger, l.Trigger.firstRaise())
	klog.FromContext(ctx).V(1).Info("Loop triggered", "batchWait", waited, "laterRaises", more)
	return ctx.Err() == nil
}

// trigger is the trigger's channel; nil (never ready) without one.
func (l Loop) trigger() <-chan struct{} {
	if l.Trigger == nil {
		return nil
	}
	return l.Trigger.ch
}
