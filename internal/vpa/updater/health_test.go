package updater

import (
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

// TestHealthy walks upstream's updater health: healthy until the loop
// starts, then failing after five intervals without a loop.
func TestHealthy(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
	u := &Updater{cfg: Config{Interval: time.Minute}, clock: clk}
	wait := func(d time.Duration) func() { return func() { clk.Step(d) } }
	steps := []struct {
		name    string
		act     func()
		healthy bool
	}{
		{"standby", wait(time.Hour), true},
		{"leading", func() { u.health.start(clk.Now()) }, true},
		{"within five intervals", wait(5 * time.Minute), true},
		{"beyond five intervals", wait(time.Second), false},
		{"a loop heals", func() { u.health.record(clk.Now()) }, true},
		{"stopped leading", func() { wait(time.Hour)(); u.health.stop() }, true},
	}
	for _, s := range steps {
		s.act()
		if err := u.Healthy(); (err == nil) != s.healthy {
			t.Errorf("%s: Healthy() = %v, want healthy %v", s.name, err, s.healthy)
		}
	}
}
