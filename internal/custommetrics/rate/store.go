package rate

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// Config holds the sample rules.
type Config struct {
	// MinGap is the smallest distance to the previous accepted sample; closer samples are dropped.
	MinGap time.Duration
	// MaxAge is how old the newest sample may be for a rate to be served.
	MaxAge time.Duration
	// MaxPairGap is the widest distance between the two samples of a rate.
	MaxPairGap time.Duration
}

// Default fills unset fields with the reference values: 10 s, 90 s and 600 s.
func (c *Config) Default() {
	if c.MinGap == 0 {
		c.MinGap = 10 * time.Second
	}
	if c.MaxAge == 0 {
		c.MaxAge = 90 * time.Second
	}
	if c.MaxPairGap == 0 {
		c.MaxPairGap = 600 * time.Second
	}
}

// Validate reports the first invalid field.
func (c *Config) Validate() error {
	switch {
	case c.MinGap <= 0:
		return errors.New("minGap: must be positive")
	case c.MaxAge <= 0:
		return errors.New("maxAge: must be positive")
	case c.MaxPairGap < c.MinGap:
		return fmt.Errorf("maxPairGap: must be at least minGap (%s)", c.MinGap)
	}
	return nil
}

// Outcome says what Add did with a sample.
type Outcome int

const (
	// Accepted means the sample extended the current series.
	Accepted Outcome = iota
	// Started means the sample began a new series: the first sample, a new UID or a counter reset.
	Started
	// TooClose means the sample was dropped for being within MinGap of the previous one.
	TooClose
)

// String names the outcome.
func (o Outcome) String() string {
	switch o {
	case Accepted:
		return "accepted"
	case Started:
		return "started"
	default:
		return "tooClose"
	}
}

// Sample is one counter reading.
type Sample struct {
	// Value is the counter value.
	Value float64
	// Weighted is the cost-weighted counter value (zero without costs).
	Weighted float64
	// At is when it was read.
	At time.Time
}

// Rate is a per-second rate derived from two samples.
type Rate struct {
	// PerSecond is the increase per second between the two samples.
	PerSecond float64
	// WeightedPerSecond is the weighted counter's increase per second.
	WeightedPerSecond float64
	// Window is the distance between the two samples.
	Window time.Duration
	// At is the time of the newer sample.
	At time.Time
	// UID is the UID of the pod the series belongs to.
	UID types.UID
}

type series struct {
	uid      types.UID
	old, new Sample
	n        int // accepted samples in this series, capped at 2
}

// Store holds series by target key. It is safe for concurrent use.
type Store struct {
	cfg    Config
	mu     sync.RWMutex
	series map[types.NamespacedName]*series
}

// NewStore returns an empty store; cfg must be defaulted and valid.
func NewStore(cfg Config) (*Store, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("validating rate config: %w", err)
	}
	return &Store{cfg: cfg, series: map[types.NamespacedName]*series{}}, nil
}

// Add records a sample for key and returns what happened to it and how many
// samples the key's current series holds (1 or 2).
func (s *Store) Add(key types.NamespacedName, uid types.UID, sample Sample) (Outcome, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, ok := s.series[key]
	if !ok || cur.uid != uid || sample.Value < cur.new.Value || sample.Weighted < cur.new.Weighted {
		s.series[key] = &series{uid: uid, new: sample, n: 1}
		return Started, 1
	}
	if sample.At.Sub(cur.new.At) < s.cfg.MinGap {
		return TooClose, cur.n
	}
	cur.old, cur.new = cur.new, sample
	cur.n = 2
	return Accepted, 2
}

// Rate returns key's rate at now, or false when there is none: no pair yet,
// the newest sample is older than MaxAge, or the pair is wider than MaxPairGap.
func (s *Store) Rate(key types.NamespacedName, now time.Time) (Rate, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	cur, ok := s.series[key]
	if !ok || cur.n < 2 {
		return Rate{}, false
	}
	gap := cur.new.At.Sub(cur.old.At)
	if gap <= 0 || gap > s.cfg.MaxPairGap || now.Sub(cur.new.At) > s.cfg.MaxAge {
		return Rate{}, false
	}
	per := (cur.new.Value - cur.old.Value) / gap.Seconds()
	weighted := (cur.new.Weighted - cur.old.Weighted) / gap.Seconds()
	return Rate{PerSecond: per, WeightedPerSecond: weighted, Window: gap, At: cur.new.At, UID: cur.uid}, true
}

// Fresh reports whether key's newest sample is at most MaxAge old at now.
func (s *Store) Fresh(key types.NamespacedName, now time.Time) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	cur, ok := s.series[key]
	return ok && now.Sub(cur.new.At) <= s.cfg.MaxAge
}

// Delete forgets key.
func (s *Store) Delete(key types.NamespacedName) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.series, key)
}
