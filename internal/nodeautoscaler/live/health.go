package live

import (
	"fmt"
	"net/http"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// Health tracks whether the loop is alive: /healthz fails when the loop
// has not succeeded for longer than MaxInactivity since monitoring began
// (when this replica became leader). A standby replica stays healthy.
type Health struct {
	clock         clock.PassiveClock
	maxInactivity time.Duration

	mu          sync.Mutex
	monitoring  bool
	lastSuccess time.Time
	lastErr     error
}

// NewHealth returns a Health that is not monitoring yet.
func NewHealth(clk clock.PassiveClock, maxInactivity time.Duration) *Health {
	return &Health{clock: clk, maxInactivity: maxInactivity}
}

// StartMonitoring begins the inactivity check from now.
func (h *Health) StartMonitoring() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.monitoring, h.lastSuccess = true, h.clock.Now()
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
	h.lastErr = err
	if err == nil {
		h.lastSuccess = now
	}
}

// LastSuccess returns when the loop last succeeded.
func (h *Health) LastSuccess() time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lastSuccess
}

// Check returns an error when the loop has been inactive too long.
func (h *Health) Check() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.monitoring {
		return nil
	}
	if idle := h.clock.Since(h.lastSuccess); idle > h.maxInactivity {
		return fmt.Errorf("last successful loop %s ago, more than --max-inactivity %s (last error: %v)",
			idle.Round(time.Second), h.maxInactivity, h.lastErr)
	}
	return nil
}

// ServeHTTP serves /healthz: 200 "ok", or 500 with the reason.
func (h *Health) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	if err := h.Check(); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	_, _ = w.Write([]byte("ok"))
}
