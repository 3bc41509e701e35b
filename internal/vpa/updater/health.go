package updater

import (
	"fmt"
	"sync"
	"time"
)

// activity tracks the loop for the health check, as upstream's updater
// does: monitoring starts when this replica starts looping (as leader),
// and every loop, successful or not, counts as activity.
type activity struct {
	mu      sync.Mutex
	started time.Time
	last    time.Time
}

func (a *activity) start(now time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.started, a.last = now, now
}

func (a *activity) stop() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.started = time.Time{}
}

func (a *activity) record(now time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.last = now
}

// Healthy returns an error when this replica loops (it leads) and no loop
// ran within five --updater-interval, upstream's limit; a standby replica
// is healthy.
func (u *Updater) Healthy() error {
	u.health.mu.Lock()
	defer u.health.mu.Unlock()
	if u.health.started.IsZero() {
		return nil
	}
	limit := 5 * u.cfg.Interval
	if idle := u.clock.Since(u.health.last); idle > limit {
		return fmt.Errorf("no updater loop for %s, more than 5 x --updater-interval (%s)", idle.Round(time.Second), limit)
	}
	return nil
}
