package backoff

import (
	"time"
)

// Reason says why a group was backed off.
type Reason struct {
	// Code is "timeout", "APIError" or the cloud's error code.
	Code string `json:"code"`
	// Class is the cloud's error class when the cloud reported one.
	Class string `json:"class,omitempty"`
	// Message is a human-readable explanation.
	Message string `json:"message,omitempty"`
}

// Status is a group's backoff state at some time.
type Status struct {
	// BackedOff is true while the group must not be scaled up.
	BackedOff bool
	// Until is when the backoff ends; the zero time for Infinite.
	Until time.Time
	// Reason is the last failure's reason.
	Reason Reason
}

// Backoff tracks which node groups are backed off. Implementations are not
// safe for concurrent use; the autoscaler loop owns them.
type Backoff interface {
	// Backoff records a failure of group at now and returns its status.
	Backoff(group string, reason Reason, now time.Time) Status
	// Status returns the group's state at now.
	Status(group string, now time.Time) Status
	// Remove clears the group's backoff (it scaled up successfully or
	// recovered).
	Remove(group string)
	// RemoveStale forgets history that no longer matters at now.
	RemoveStale(now time.Time)
}

// exponentialEntry is one group's exponential backoff history.
type exponentialEntry struct {
	duration   time.Duration
	until      time.Time
	lastFailed time.Time
	reason     Reason
}

// Exponential is the upstream policy.
type Exponential struct {
	initial, max, reset time.Duration
	entries             map[string]*exponentialEntry
}

var _ Backoff = (*Exponential)(nil)

// NewExponential returns the upstream policy: the first failure backs off
// for initial, a failure after a backoff ended doubles the last duration up
// to maxDuration, failures during an active backoff do not double it, and a
// group's history is forgotten reset after its last failure.
func NewExponential(initial, maxDuration, reset time.Duration) *Exponential {
	return &Exponential{initial: initial, max: maxDuration, reset: reset, entries: map[string]*exponentialEntry{}}
}

// Backoff records a failure.
func (b *Exponential) Backoff(group string, reason Reason, now time.Time) Status {
	d := b.initial
	if e, ok := b.entries[group]; ok && now.Sub(e.lastFailed) <= b.reset {
		d = e.duration
		if !now.Before(e.until) {
			d = min(2*d, b.max)
		}
	}
	b.entries[group] = &exponentialEntry{duration: d, until: now.Add(d), lastFailed: now, reason: reason}
	return b.Status(group, now)
}

// Status reports whether now is before the group's backoff end.
func (b *Exponential) Status(group string, now time.Time) Status {
	e, ok := b.entries[group]
	if !ok {
		return Status{}
	}
	return Status{BackedOff: now.Before(e.until), Until: e.until, Reason: e.reason}
}

// Remove forgets the group, as upstream does after a successful scale-up.
func (b *Exponential) Remove(group string) { delete(b.entries, group) }

// RemoveStale forgets groups whose last failure is older than the reset
// timeout.
func (b *Exponential) RemoveStale(now time.Time) {
	for g, e := range b.entries {
		if now.Sub(e.lastFailed) > b.reset {
			delete(b.entries, g)
		}
	}
}

// Infinite is the fork's policy: backed off until Remove.
type Infinite struct {
	entries map[string]Reason
}

var _ Backoff = (*Infinite)(nil)

// NewInfinite returns the --backoff-no-full-scale-down policy.
func NewInfinite() *Infinite { return &Infinite{entries: map[string]Reason{}} }

// Backoff marks the group; time does not matter.
func (b *Infinite) Backoff(group string, reason Reason, _ time.Time) Status {
	b.entries[group] = reason
	return Status{BackedOff: true, Reason: reason}
}

// Status reports the mark.
func (b *Infinite) Status(group string, _ time.Time) Status {
	r, ok := b.entries[group]
	return Status{BackedOff: ok, Reason: r}
}

// Remove clears the mark.
func (b *Infinite) Remove(group string) { delete(b.entries, group) }

// RemoveStale does nothing: only recovery clears an infinite backoff.
func (b *Infinite) RemoveStale(time.Time) {}
