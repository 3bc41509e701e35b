package live_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kscale/kscale/internal/nodeautoscaler/live"
)

// TestHealth walks upstream's three timers: --max-inactivity since the
// last loop, --max-failing-time since the last success, and
// --max-startup-time for both until the first success.
func TestHealth(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
	h := live.NewHealth(clk, live.HealthTimers{MaxInactivity: 10 * time.Minute, MaxFailing: 15 * time.Minute, MaxStartup: 20 * time.Minute})
	fail := func() { h.Record(clk.Now(), errors.New("boom")) }
	wait := func(d time.Duration) func() { return func() { clk.SetTime(clk.Now().Add(d)) } }
	steps := []struct {
		name    string
		act     func()
		healthy bool
	}{
		{"standby is healthy however long", wait(time.Hour), true},
		{"leading starts the clock", h.StartMonitoring, true},
		{"start-up grace beyond the inactivity limit", wait(19 * time.Minute), true},
		{"start-up grace ends", wait(2 * time.Minute), false},
		{"a success heals", func() { h.Record(clk.Now(), nil) }, true},
		{"failing loops within both limits", func() { wait(9 * time.Minute)(); fail() }, true},
		{"still active, failing within the limit", func() { wait(5 * time.Minute)(); fail() }, true},
		{"failing too long although active", func() { wait(2 * time.Minute)(); fail() }, false},
		{"a success heals again", func() { h.Record(clk.Now(), nil) }, true},
		{"inactive too long", wait(11 * time.Minute), false},
		{"stopped monitoring", func() { wait(time.Hour)(); h.StopMonitoring() }, true},
	}
	for _, s := range steps {
		s.act()
		for _, path := range []string{"/health-check", "/healthz"} {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
			if got := rec.Code == http.StatusOK; got != s.healthy {
				t.Errorf("%s: %s %d %q, want healthy=%v", s.name, path, rec.Code, rec.Body.String(), s.healthy)
			}
		}
	}
}
