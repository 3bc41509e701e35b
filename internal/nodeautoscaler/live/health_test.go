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

func TestHealth(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
	h := live.NewHealth(clk, 10*time.Minute)
	steps := []struct {
		name    string
		act     func()
		healthy bool
	}{
		{"standby is healthy however long", func() { clk.SetTime(clk.Now().Add(time.Hour)) }, true},
		{"leading starts the clock", h.StartMonitoring, true},
		{"failures within the limit", func() { clk.SetTime(clk.Now().Add(9 * time.Minute)); h.Record(clk.Now(), errors.New("boom")) }, true},
		{"inactive too long", func() { clk.SetTime(clk.Now().Add(2 * time.Minute)) }, false},
		{"a success heals", func() { h.Record(clk.Now(), nil) }, true},
		{"stopped monitoring", func() { clk.SetTime(clk.Now().Add(time.Hour)); h.StopMonitoring() }, true},
	}
	for _, s := range steps {
		s.act()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/healthz", nil))
		if got := rec.Code == http.StatusOK; got != s.healthy {
			t.Errorf("%s: /healthz %d %q, want healthy=%v", s.name, rec.Code, rec.Body.String(), s.healthy)
		}
	}
}
