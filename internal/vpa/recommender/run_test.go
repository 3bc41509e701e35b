package recommender_test

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/prometheus/client_golang/prometheus"
)

// testRunLoop runs Run on the fake clock and checks one loop per tick and
// the health check.
func testRunLoop(t *testing.T, h *harness) {
	reg := prometheus.NewRegistry()
	r := h.newRecommender(t, reg)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	h.usage.setTime(h.clock.Now())
	go func() { done <- r.Run(ctx) }()
	waitLoopAt := func(at time.Time) {
		t.Helper()
		err := wait.PollUntilContextTimeout(t.Context(), 20*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
			mfs, err := reg.Gather()
			if err != nil {
				return false, err
			}
			for _, mf := range mfs {
				if mf.GetName() == "kscale_vpa_recommender_last_loop_timestamp_seconds" {
					return mf.GetMetric()[0].GetGauge().GetValue() == float64(at.Unix()), nil
				}
			}
			return false, nil
		})
		if err != nil {
			t.Fatalf("no loop completed at %v: %v", at, err)
		}
	}
	waitLoopAt(h.clock.Now())
	if err := r.Healthy(h.clock.Now()); err != nil {
		t.Fatalf("Healthy after a loop: %v", err)
	}
	if err := r.Healthy(h.clock.Now().Add(6 * time.Minute)); err == nil {
		t.Fatal("Healthy six intervals after the last loop")
	}
	err := wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		return h.clock.HasWaiters(), nil
	})
	if err != nil {
		t.Fatal("Run never waited on its ticker")
	}
	h.clock.Step(time.Minute)
	h.usage.setTime(h.clock.Now())
	waitLoopAt(h.clock.Now())
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run returned %v after cancel", err)
	}
}
