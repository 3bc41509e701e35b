package scrape

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"

	"github.com/kscale/kscale/internal/custommetrics/discovery"
)

// Scraper performs one scrape.
type Scraper interface {
	Scrape(ctx context.Context, t discovery.Target) (Result, error)
}

// Targets is the current target set.
type Targets interface {
	Targets() []discovery.Target
	Changed() <-chan struct{}
}

// Sink receives the outcome of every scrape. It must be safe for concurrent use.
type Sink interface {
	// Observe records a scrape (err is nil on success) and returns how many
	// samples the target's current series holds afterwards.
	Observe(t discovery.Target, res Result, err error, took time.Duration) int
	// Forget drops a target that left the set.
	Forget(t discovery.Target)
}

// SchedulerConfig configures a Scheduler.
type SchedulerConfig struct {
	// Targets supplies the targets.
	Targets Targets
	// Scraper scrapes one target.
	Scraper Scraper
	// Sink receives outcomes.
	Sink Sink
	// Period is how often each target is scraped; default 60s.
	Period time.Duration
	// Timeout bounds one scrape; default Period/2.
	Timeout time.Duration
	// WarmupGap is the delay of the second scrape of a new series, so a
	// rate exists soon; it must exceed the rate store's minimum gap. Default 11s.
	WarmupGap time.Duration
	// MaxInFlight bounds concurrent scrapes; default 50.
	MaxInFlight int
	// Clock drives the schedule; default the real clock.
	Clock clock.WithTicker
}

// Default fills unset fields.
func (c *SchedulerConfig) Default() {
	if c.Period == 0 {
		c.Period = time.Minute
	}
	if c.Timeout == 0 {
		c.Timeout = c.Period / 2
	}
	if c.WarmupGap == 0 {
		c.WarmupGap = 11 * time.Second
	}
	if c.MaxInFlight == 0 {
		c.MaxInFlight = 50
	}
	if c.Clock == nil {
		c.Clock = clock.RealClock{}
	}
}

// Validate reports the first invalid field.
func (c *SchedulerConfig) Validate() error {
	switch {
	case c.Targets == nil || c.Scraper == nil || c.Sink == nil:
		return errors.New("targets, scraper and sink: required")
	case c.Period <= 0:
		return errors.New("period: must be positive")
	case c.Timeout <= 0 || c.Timeout > c.Period:
		return fmt.Errorf("timeout: must be positive and at most the period (%s)", c.Period)
	case c.WarmupGap <= 0 || c.WarmupGap >= c.Period:
		return fmt.Errorf("warmupGap: must be positive and below the period (%s)", c.Period)
	case c.MaxInFlight < 1:
		return errors.New("maxInFlight: must be at least 1")
	}
	return nil
}

type entry struct {
	target  discovery.Target
	offset  time.Duration // phase of the target's slot within the period
	due     time.Time
	running bool
	removed bool
}

type done struct {
	key     types.NamespacedName
	started time.Time
	res     Result
	err     error
	samples int
}

// Scheduler scrapes every target once per period, spread evenly.
type Scheduler struct {
	cfg      SchedulerConfig
	entries  map[types.NamespacedName]*entry
	inFlight int
	done     chan done
	wg       sync.WaitGroup
}

// NewScheduler returns a Scheduler; call Run to start it.
func NewScheduler(cfg SchedulerConfig) (*Scheduler, error) {
	cfg.Default()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("validating scheduler config: %w", err)
	}
	return &Scheduler{cfg: cfg, entries: map[types.NamespacedName]*entry{}, done: make(chan done, cfg.MaxInFlight)}, nil
}

// Run scrapes until ctx ends, then waits for scrapes in flight to stop.
func (s *Scheduler) Run(ctx context.Context) {
	defer s.wg.Wait()
	s.sync()
	for {
		s.startDue(ctx)
		timer := s.cfg.Clock.NewTimer(s.untilNext())
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-s.cfg.Targets.Changed():
			s.sync()
		case d := <-s.done:
			s.finish(d)
		case <-timer.C():
		}
		timer.Stop()
	}
}

// sync reconciles entries with the target set. New targets and targets with
// a new UID are due at once.
func (s *Scheduler) sync() {
	now := s.cfg.Clock.Now()
	seen := map[types.NamespacedName]bool{}
	for _, t := range s.cfg.Targets.Targets() {
		seen[t.Key] = true
		e, ok := s.entries[t.Key]
		if !ok {
			s.entries[t.Key] = &entry{target: t, offset: slotOffset(t.Key, s.cfg.Period), due: now}
			continue
		}
		if e.target.UID != t.UID {
			e.due = now
		}
		e.target, e.removed = t, false
	}
	for k, e := range s.entries {
		if seen[k] {
			continue
		}
		if e.running {
			e.removed = true
			continue
		}
		delete(s.entries, k)
		s.cfg.Sink.Forget(e.target)
	}
}

// startDue starts due targets, earliest first, while slots are free.
func (s *Scheduler) startDue(ctx context.Context) {
	if s.inFlight >= s.cfg.MaxInFlight {
		return
	}
	now := s.cfg.Clock.Now()
	var due []*entry
	for _, e := range s.entries {
		if !e.running && !e.due.After(now) {
			due = append(due, e)
		}
	}
	slices.SortFunc(due, func(a, b *entry) int { return a.due.Compare(b.due) })
	for _, e := range due {
		if s.inFlight >= s.cfg.MaxInFlight {
			return
		}
		s.start(ctx, e, now)
	}
}

func (s *Scheduler) start(ctx context.Context, e *entry, now time.Time) {
	e.running = true
	s.inFlight++
	t := e.target
	s.wg.Go(func() {
		sctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
		defer cancel()
		res, err := s.cfg.Scraper.Scrape(sctx, t)
		took := s.cfg.Clock.Since(now)
		if ctx.Err() != nil {
			return // shutting down: record nothing
		}
		samples := s.cfg.Sink.Observe(t, res, err, took)
		s.done <- done{key: t.Key, started: now, res: res, err: err, samples: samples}
	})
}

// finish schedules the next scrape of a target: soon for a series with a
// single sample, else at its slot in the period after next.
func (s *Scheduler) finish(d done) {
	s.inFlight--
	e, ok := s.entries[d.key]
	if !ok {
		return
	}
	e.running = false
	if e.removed {
		delete(s.entries, d.key)
		s.cfg.Sink.Forget(e.target)
		return
	}
	if d.err == nil && d.samples == 1 {
		e.due = d.res.At.Add(s.cfg.WarmupGap)
		return
	}
	e.due = nextSlot(d.started, e.offset, s.cfg.Period)
}

// untilNext is the wait until the earliest idle entry is due.
func (s *Scheduler) untilNext() time.Duration {
	wait := s.cfg.Period
	if s.inFlight >= s.cfg.MaxInFlight {
		return wait
	}
	now := s.cfg.Clock.Now()
	for _, e := range s.entries {
		if !e.running {
			wait = min(wait, max(e.due.Sub(now), 0))
		}
	}
	return wait
}

// slotOffset places a target at a stable, evenly distributed phase of the period.
func slotOffset(key types.NamespacedName, period time.Duration) time.Duration {
	h := fnv.New64a()
	_, _ = h.Write([]byte(key.String()))
	return time.Duration(h.Sum64() % uint64(period))
}

// nextSlot returns the first time at or after started+period/2 that falls on
// the target's phase, so consecutive scrapes are one period apart in steady state.
func nextSlot(started time.Time, offset, period time.Duration) time.Time {
	base := started.Add(period / 2)
	r := time.Duration((base.UnixNano() - int64(offset)) % int64(period))
	if r < 0 {
		r += period
	}
	if r == 0 {
		return base
	}
	return base.Add(period - r)
}
