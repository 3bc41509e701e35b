package live

import (
	"fmt"
	"net/http"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// HealthTimers are upstream's three health limits.
type HealthTimers struct {
	// MaxInactivity is --max-inactivity: the longest time since the last
	// loop ran, successful or not.
	MaxInactivity time.Duration
	// MaxFailing is --max-failing-time: the longest time since the last
	// successful loop.
	MaxFailing time.Duration
	// MaxStartup is --max-startup-time: both limits until the first loop
	// succeeded; raised to at least the other two.
	MaxStartup time.Duration
}

// Health tracks whether the loop is alive, as upstream's health check: it
// fails when the last loop ran longer than MaxInactivity ago or the last
// successful one longer than MaxFailing ago (MaxStartup for both until the
// first success), counted from when monitoring began (when this replica
// became leader). A standby replica stays healthy.
type Health struct {
	clock  clock.PassiveClock
	timers HealthTimers

	mu           sync.Mutex
	monitoring   bool
	succeeded    bool
	lastActivity time.Time
	lastSuccess  time.Time
	lastErr      error
}

// NewHealth returns a Health that is not monitoring yet.
func NewHealth(clk clock.PassiveClock, t HealthTimers) *Health {
	t.MaxStartup = max(t.MaxStartup, t.MaxInactivity, t.MaxFailing)
	return &Health{clock: clk, timers: t}
}

// StartMonitoring begins the checks from now.
func (h *Health) StartMonitoring() {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.clock.Now()
	h.monitoring, h.succeeded, h.lastActivity, h.lastSuccess = true, false, now, now
}

// StopMonitoring ends the check (leadership lost).
func (h *Health) StopMonitoring() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.monitoring = false
}

// Record notes a loop's result.
func (h *Health) Record(now time.Time, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.lastErr, h.lastActivity = err, now
	if err == nil {
		h.lastSuccess, h.succeeded = now, true
	}
}

// LastSuccess returns when the loop last succeeded.
func (h *Health) LastSuccess() time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lastSuccess
}

// Check returns an error when a limit is exceeded.
func (h *Health) Check() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.monitoring {
		return nil
	}
	inactivity, failing := h.timers.MaxInactivity, h.timers.MaxFailing
	if !h.succeeded {
		inactivity, failing = h.timers.MaxStartup, h.timers.MaxStartup
	}
	if idle := h.clock.Since(h.lastActivity); idle > inactivity {
		return fmt.Errorf("last activity %s ago, more than %s", idle.Round(time.Second), inactivity)
	}
	if idle := h.clock.Since(h.lastSuccess); idle > failing {
		return fmt.Errorf("last successful loop %s ago, more than %s (last error: %v)", idle.Round(time.Second), failing, h.lastErr)
	}
	return nil
}

// ServeHTTP answers 200 "OK", or 500 with the reason.
func (h *Health) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	if err := h.Check(); err != nil {
		http.Error(w, "Error: "+err.Error(), http.StatusInternalServerError)
		return
	}
	_, _ = w.Write([]byte("OK"))
}
