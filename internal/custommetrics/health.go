package custommetrics

import (
	"fmt"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// Health tells whether scraping makes progress: while this replica leads
// and has targets, some scrape (successful or not) must finish at least
// every three scrape periods. A standby replica is healthy.
type Health struct {
	clock clock.PassiveClock

	mu           sync.Mutex
	period       time.Duration
	targets      func() int
	leadingSince time.Time
	lastScrape   time.Time
}

// NewHealth returns a Health on clk (default the real clock).
func NewHealth(clk clock.PassiveClock) *Health {
	if clk == nil {
		clk = clock.RealClock{}
	}
	return &Health{clock: clk}
}

// stallPeriods is how many scrape periods may pass without a finished
// scrape.
const stallPeriods = 3

// Check returns an error when scraping stalled.
func (h *Health) Check() error {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.leadingSince.IsZero() || h.targets == nil || h.targets() == 0 {
		return nil
	}
	last := h.lastScrape
	if last.Before(h.leadingSince) {
		last = h.leadingSince
	}
	limit := stallPeriods * h.period
	if idle := h.clock.Since(last); idle > limit {
		return fmt.Errorf("no scrape finished for %s, more than %d x --scrape-period (%s)", idle.Round(time.Second), stallPeriods, h.period)
	}
	return nil
}

// configure sets the scrape period and the target count.
func (h *Health) configure(period time.Duration, targets func() int) {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.period, h.targets = period, targets
}

// lead marks the start (true) or end (false) of leading.
func (h *Health) lead(on bool) {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.leadingSince = time.Time{}
	if on {
		h.leadingSince = h.clock.Now()
	}
}

// scraped notes a finished scrape.
func (h *Health) scraped() {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.lastScrape = h.clock.Now()
}
