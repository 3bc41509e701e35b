package custommetrics

import (
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

// TestHealth walks the scrape-progress check: healthy while standing by
// or without targets; while leading with targets, failing after three
// scrape periods without a finished scrape.
func TestHealth(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(time.Unix(1000, 0))
	h := NewHealth(clk)
	targets := 0
	h.configure(time.Minute, func() int { return targets })
	wait := func(d time.Duration) func() { return func() { clk.SetTime(clk.Now().Add(d)) } }
	steps := []struct {
		name    string
		act     func()
		healthy bool
	}{
		{"standby", wait(time.Hour), true},
		{"leading, no targets", func() { h.lead(true); wait(time.Hour)() }, true},
		{"targets appear: counted from now on", func() { targets = 2; h.lead(true) }, true},
		{"three periods without a scrape", wait(3 * time.Minute), true},
		{"stalled", wait(time.Second), false},
		{"a scrape heals", h.scraped, true},
		{"stalled again", wait(4 * time.Minute), false},
		{"standby again", func() { h.lead(false) }, true},
	}
	for _, s := range steps {
		s.act()
		if err := h.Check(); (err == nil) != s.healthy {
			t.Errorf("%s: Check() = %v, want healthy %v", s.name, err, s.healthy)
		}
	}
	var none *Health
	if err := none.Check(); err != nil {
		t.Errorf("nil Health: %v", err)
	}
}
