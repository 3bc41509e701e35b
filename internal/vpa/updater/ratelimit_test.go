package updater

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

// TestRateLimiter checks scenario 8's rate limit: at 0.2 evictions per
// second with burst 1, two evictions are at least 5s apart.
func TestRateLimiter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		r := newRateLimiter(0.2, 1, clk)
		if err := r.Wait(t.Context()); err != nil {
			t.Fatalf("first wait: %v", err)
		}
		done := make(chan error, 1)
		go func() { done <- r.Wait(t.Context()) }()
		synctest.Wait()
		clk.Step(4999 * time.Millisecond)
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("second eviction allowed after 4.999s (err %v)", err)
		default:
		}
		clk.Step(time.Millisecond)
		if err := <-done; err != nil {
			t.Fatalf("second wait: %v", err)
		}
	})
}

func TestRateLimiterOffAndCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := clocktesting.NewFakeClock(time.Now())
		if r := newRateLimiter(-1, 1, clk); r != nil {
			t.Fatal("a rate of -1 must disable the limiter")
		}
		var off *rateLimiter
		for range 100 {
			if err := off.Wait(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
		r := newRateLimiter(0.1, 1, clk)
		_ = r.Wait(t.Context())
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- r.Wait(ctx) }()
		synctest.Wait()
		cancel()
		if err := <-done; err == nil {
			t.Fatal("a cancelled wait must fail")
		}
	})
}
