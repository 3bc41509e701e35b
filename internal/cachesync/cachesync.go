// Package cachesync waits for informer caches with a deadline, saying what
// it waits for while it waits and why it gave up, so a command whose API
// server is unreachable or forbidden fails with a reason instead of
// waiting in silence.
package cachesync

import (
	"context"
	"fmt"
	"time"

	"k8s.io/klog/v2"
)

// progressEvery is how often a wait that goes on is logged.
const progressEvery = 10 * time.Second

// TimeoutError is a cache that did not sync in time.
type TimeoutError struct {
	// What names the cached objects ("pods and events").
	What string
	// Timeout is how long was waited.
	Timeout time.Duration
	// Flag is the flag that sets the timeout.
	Flag string
}

// Error says what did not sync and what to check.
func (e *TimeoutError) Error() string {
	return fmt.Sprintf("the %s cache did not sync within %v (%s): is the API server reachable, and may this identity list and watch them?",
		e.What, e.Timeout, e.Flag)
}

// Wait runs wait, which blocks until the caches synced (true) or its
// context ends (false), with a deadline of timeout. It logs what it waits
// for at the start and every 10 seconds, and returns a *TimeoutError when
// the deadline passes, or ctx's error when ctx ends first.
func Wait(ctx context.Context, what string, timeout time.Duration, flag string, wait func(ctx context.Context) bool) error {
	log := klog.FromContext(ctx)
	log.Info("Waiting for caches to sync", "caches", what, "timeout", timeout)
	waitCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	done := make(chan bool, 1)
	start := time.Now()
	go func() { done <- wait(waitCtx) }()
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	for {
		select {
		case ok := <-done:
			switch {
			case ok:
				log.Info("Caches synced", "caches", what, "took", time.Since(start).Round(time.Millisecond))
				return nil
			case ctx.Err() != nil:
				return fmt.Errorf("waiting for the %s cache: %w", what, ctx.Err())
			default:
				return &TimeoutError{What: what, Timeout: timeout, Flag: flag}
			}
		case <-tick.C:
			log.Info("Still waiting for caches to sync", "caches", what, "waited", time.Since(start).Round(time.Second), "timeout", timeout)
		}
	}
}
