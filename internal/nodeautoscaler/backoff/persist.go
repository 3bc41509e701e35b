package backoff

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Entry is one group's backoff history in a form that survives the
// process: a new leader restores it so a restart does not forget a
// backed-off group.
type Entry struct {
	// Group is the node group id.
	Group string `json:"group"`
	// Reason is the last failure's reason.
	Reason Reason `json:"reason"`
	// Until is when the backoff ends; zero for the Infinite policy.
	Until time.Time `json:"until,omitzero"`
	// Duration is the last backoff duration (Exponential only).
	Duration time.Duration `json:"duration,omitempty"`
	// LastFailed is when the group last failed (Exponential only).
	LastFailed time.Time `json:"lastFailed,omitzero"`
}

// Validate reports an entry that cannot be restored, naming the field.
func (e Entry) Validate() error {
	switch {
	case e.Group == "":
		return errors.New("group: must not be empty")
	case e.Duration < 0:
		return fmt.Errorf("duration: must not be negative, got %v", e.Duration)
	case !e.Until.IsZero() && e.LastFailed.IsZero():
		return errors.New("lastFailed: required when until is set")
	}
	return nil
}

// Persistent is a Backoff whose state can be exported and restored.
type Persistent interface {
	Backoff
	// Entries returns every group's history, sorted by group.
	Entries() []Entry
	// Restore replaces the state with entries. It validates every entry
	// first and changes nothing when one is invalid.
	Restore(entries []Entry) error
}

var (
	_ Persistent = (*Exponential)(nil)
	_ Persistent = (*Infinite)(nil)
)

// Entries returns every group's history, sorted by group.
func (b *Exponential) Entries() []Entry {
	out := make([]Entry, 0, len(b.entries))
	for g, e := range b.entries {
		out = append(out, Entry{Group: g, Reason: e.reason, Until: e.until, Duration: e.duration, LastFailed: e.lastFailed})
	}
	return sortEntries(out)
}

// Restore replaces the state with entries. Entries without Until were
// written by the Infinite policy (the flags changed between restarts) and
// carry no time to resume from, so they are skipped.
func (b *Exponential) Restore(entries []Entry) error {
	if err := ValidateEntries(entries); err != nil {
		return err
	}
	b.entries = make(map[string]*exponentialEntry, len(entries))
	for _, e := range entries {
		if e.Until.IsZero() {
			continue
		}
		d := e.Duration
		if d <= 0 {
			d = b.initial
		}
		b.entries[e.Group] = &exponentialEntry{duration: min(d, b.max), until: e.Until, lastFailed: e.LastFailed, reason: e.Reason}
	}
	return nil
}

// Entries returns every backed-off group, sorted by group.
func (b *Infinite) Entries() []Entry {
	out := make([]Entry, 0, len(b.entries))
	for g, r := range b.entries {
		out = append(out, Entry{Group: g, Reason: r})
	}
	return sortEntries(out)
}

// Restore marks every group of entries as backed off: under this policy a
// group recorded by either policy stays backed off until it recovers.
func (b *Infinite) Restore(entries []Entry) error {
	if err := ValidateEntries(entries); err != nil {
		return err
	}
	b.entries = make(map[string]Reason, len(entries))
	for _, e := range entries {
		b.entries[e.Group] = e.Reason
	}
	return nil
}

// ValidateEntries reports the first entry that cannot be restored, by
// index and field.
func ValidateEntries(entries []Entry) error {
	seen := make(map[string]bool, len(entries))
	for i, e := range entries {
		if err := e.Validate(); err != nil {
			return fmt.Errorf("restoring backoff: entry %d: %w", i, err)
		}
		if seen[e.Group] {
			return fmt.Errorf("restoring backoff: entry %d: group: %q listed twice", i, e.Group)
		}
		seen[e.Group] = true
	}
	return nil
}

func sortEntries(es []Entry) []Entry {
	slices.SortFunc(es, func(a, b Entry) int { return strings.Compare(a.Group, b.Group) })
	return es
}

// State is the backoff state of a whole autoscaler: the main policy's
// entries and, when a separate policy backs off failed API calls, its
// entries.
type State struct {
	// ScaleUp are the entries of the main policy (failed and timed-out
	// scale-ups).
	ScaleUp []Entry `json:"scaleUp"`
	// APIErrors are the entries of the API-error policy, if one is used.
	APIErrors []Entry `json:"apiErrors,omitempty"`
}
