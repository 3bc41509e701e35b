package updater

import (
	"context"
	"fmt"

	"golang.org/x/time/rate"
	"k8s.io/utils/clock"
)

// rateLimiter is a token bucket on an injected clock; a nil *rateLimiter
// never waits.
type rateLimiter struct {
	limiter *rate.Limiter
	clock   clock.Clock
}

// newRateLimiter returns a limiter of perSecond events with burst, or nil
// when perSecond ≤ 0 (no limit).
func newRateLimiter(perSecond float64, burst int, clk clock.Clock) *rateLimiter {
	if perSecond <= 0 {
		return nil
	}
	return &rateLimiter{limiter: rate.NewLimiter(rate.Limit(perSecond), burst), clock: clk}
}

// Wait blocks until the next event is allowed or ctx ends.
func (r *rateLimiter) Wait(ctx context.Context) error {
	if r == nil {
		return nil
	}
	now := r.clock.Now()
	res := r.limiter.ReserveN(now, 1)
	if !res.OK() {
		return fmt.Errorf("waiting for the eviction rate limiter: burst %d too small", r.limiter.Burst())
	}
	delay := res.DelayFrom(now)
	if delay <= 0 {
		return nil
	}
	t := r.clock.NewTimer(delay)
	defer t.Stop()
	select {
	case <-t.C():
		return nil
	case <-ctx.Done():
		res.CancelAt(r.clock.Now())
		return fmt.Errorf("waiting for the eviction rate limiter: %w", ctx.Err())
	}
}
