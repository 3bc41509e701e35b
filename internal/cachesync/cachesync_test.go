package cachesync

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

func TestWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		never := func(ctx context.Context) bool { <-ctx.Done(); return false }
		err := Wait(t.Context(), "pods", 30*time.Second, "--cache-sync-timeout", never)
		var te *TimeoutError
		if !errors.As(err, &te) || te.What != "pods" || te.Timeout != 30*time.Second {
			t.Fatalf("error %v, want a TimeoutError for pods after 30s", err)
		}
		if want := "the pods cache did not sync within 30s (--cache-sync-timeout)"; err.Error()[:len(want)] != want {
			t.Fatalf("message %q", err)
		}
		synced := func(ctx context.Context) bool { time.Sleep(time.Second); return true }
		if err := Wait(t.Context(), "pods", time.Minute, "--x", synced); err != nil {
			t.Fatalf("synced cache: %v", err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if err := Wait(ctx, "pods", time.Minute, "--x", never); !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled: %v", err)
		}
	})
}
