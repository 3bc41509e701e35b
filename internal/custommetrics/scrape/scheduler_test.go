package scrape

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/kscale/kscale/internal/custommetrics/discovery"
)

// targetSet is a mutable target source for scheduler tests.
type targetSet struct {
	mu      sync.Mutex
	targets []discovery.Target
	changed chan struct{}
}

func newTargetSet(n int) *targetSet {
	s := &targetSet{changed: make(chan struct{}, 1)}
	for i := range n {
		s.targets = append(s.targets, target(fmt.Sprintf("kapi-%d", i), "u"))
	}
	return s
}

func target(name string, uid types.UID) discovery.Target {
	return discovery.Target{Key: types.NamespacedName{Namespace: "shoot--p--a", Name: name}, UID: uid, IP: "10.0.0.1"}
}

func (s *targetSet) Targets() []discovery.Target {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]discovery.Target(nil), s.targets...)
}

func (s *targetSet) Changed() <-chan struct{} { return s.changed }

func (s *targetSet) set(ts []discovery.Target) {
	s.mu.Lock()
	s.targets = ts
	s.mu.Unlock()
	s.changed <- struct{}{}
}

// countingScraper answers after latency with an increasing counter; names
// in hang block until the scrape's context ends.
type countingScraper struct {
	latency time.Duration
	hang    map[string]bool

	mu          sync.Mutex
	inFlight    int
	maxInFlight int
	starts      map[string][]time.Time
}

func (c *countingScraper) Scrape(ctx context.Context, t discovery.Target) (Result, error) {
	c.mu.Lock()
	c.inFlight++
	c.maxInFlight = max(c.maxInFlight, c.inFlight)
	c.starts[t.Key.Name] = append(c.starts[t.Key.Name], time.Now())
	n := len(c.starts[t.Key.Name])
	c.mu.Unlock()
	defer func() { c.mu.Lock(); c.inFlight--; c.mu.Unlock() }()
	if c.hang[t.Key.Name] {
		<-ctx.Done()
		return Result{}, ctx.Err()
	}
	time.Sleep(c.latency) // virtual time inside the synctest bubble
	return Result{Value: float64(n * 100), At: time.Now(), Series: 1}, nil
}

func (c *countingScraper) startsOf(name string) []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Time(nil), c.starts[name]...)
}

// seriesSink counts samples per target like the rate store does (no min gap
// check needed: the scheduler never scrapes closer than WarmupGap).
type seriesSink struct {
	mu       sync.Mutex
	samples  map[types.NamespacedName]int
	faults   map[types.NamespacedName]int
	forgot   []types.NamespacedName
	lastTook time.Duration
}

func (s *seriesSink) Observe(t discovery.Target, _ Result, err error, took time.Duration) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastTook = took
	if err != nil {
		s.faults[t.Key]++
		return s.samples[t.Key]
	}
	s.samples[t.Key] = min(s.samples[t.Key]+1, 2)
	return s.samples[t.Key]
}

func (s *seriesSink) Forget(t discovery.Target) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.samples, t.Key)
	s.forgot = append(s.forgot, t.Key)
}

func (s *seriesSink) faultsOf(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.faults[types.NamespacedName{Namespace: "shoot--p--a", Name: name}]
}

type harness struct {
	targets *targetSet
	scraper *countingScraper
	sink    *seriesSink
	cancel  context.CancelFunc
	done    chan struct{}
}

func startScheduler(t *testing.T, n int, hang ...string) *harness {
	t.Helper()
	h := &harness{
		targets: newTargetSet(n),
		scraper: &countingScraper{latency: 200 * time.Millisecond, hang: map[string]bool{}, starts: map[string][]time.Time{}},
		sink:    &seriesSink{samples: map[types.NamespacedName]int{}, faults: map[types.NamespacedName]int{}},
		done:    make(chan struct{}),
	}
	for _, name := range hang {
		h.scraper.hang[name] = true
	}
	s, err := NewScheduler(SchedulerConfig{Targets: h.targets, Scraper: h.scraper, Sink: h.sink})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	h.cancel = cancel
	go func() { s.Run(ctx); close(h.done) }()
	return h
}

func (h *harness) stop() {
	h.cancel()
	<-h.done
}

// TestSchedulerSpreadsLoad is scenario 12: 600 targets, 60 s period.
func TestSchedulerSpreadsLoad(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startScheduler(t, 600, "kapi-599")
		t0 := time.Now()
		time.Sleep(10 * time.Minute)
		h.stop()

		if h.scraper.maxInFlight > 50 {
			t.Errorf("max in flight = %d, want at most 50", h.scraper.maxInFlight)
		}
		// Steady state (after two warm-up periods): once per period, spread.
		perSecond := map[int64]int{}
		for i := range 599 {
			starts := h.scraper.startsOf(fmt.Sprintf("kapi-%d", i))
			if len(starts) < 2 || starts[1].Sub(starts[0]) < 11*time.Second || starts[1].Sub(starts[0]) > 13*time.Second {
				t.Fatalf("kapi-%d: warm-up scrapes at %v, want a second scrape 11-13 s after the first", i, starts)
			}
			for j := 3; j < len(starts); j++ {
				if gap := starts[j].Sub(starts[j-1]); gap < 59*time.Second || gap > 61*time.Second {
					t.Fatalf("kapi-%d: gap %s between scrapes %d and %d, want 60s ± 1s", i, gap, j-1, j)
				}
			}
			for _, s := range starts {
				if s.Sub(t0) >= 3*time.Minute {
					perSecond[s.Sub(t0).Milliseconds()/1000]++
				}
			}
		}
		var busiest int
		for _, n := range perSecond {
			busiest = max(busiest, n)
		}
		// 600 targets / 60 s = 10 per second on average; hashing is uneven, but far from a burst.
		if busiest > 30 {
			t.Errorf("busiest second in steady state has %d scrapes, want about 10 (at most 30)", busiest)
		}
		if got := h.sink.faultsOf("kapi-599"); got < 9 {
			t.Errorf("hanging target counted %d faults over 10 periods, want about 10", got)
		}
	})
}

func TestSchedulerHangingTargetTimesOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startScheduler(t, 1, "kapi-0")
		time.Sleep(31 * time.Second)
		synctest.Wait()
		if got := h.sink.faultsOf("kapi-0"); got != 1 {
			t.Fatalf("faults after 31 s = %d, want 1 (abandoned after 30 s)", got)
		}
		if h.sink.lastTook != 30*time.Second {
			t.Fatalf("recorded duration %s, want 30s", h.sink.lastTook)
		}
		h.stop()
	})
}

func TestSchedulerFollowsTargetChanges(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startScheduler(t, 2)
		time.Sleep(2 * time.Minute)
		before := len(h.scraper.startsOf("kapi-0"))

		added := target("kapi-new", "u")
		h.targets.set([]discovery.Target{target("kapi-0", "u2"), added})
		t1 := time.Now()
		time.Sleep(time.Second)
		synctest.Wait()

		if starts := h.scraper.startsOf("kapi-new"); len(starts) != 1 || starts[0].Sub(t1) > time.Second {
			t.Fatalf("new target scraped at %v, want once within 1s of %v", starts, t1)
		}
		if got := len(h.scraper.startsOf("kapi-0")); got != before+1 {
			t.Fatalf("kapi-0 with a new UID scraped %d times, want %d (an immediate scrape)", got, before+1)
		}
		h.sink.mu.Lock()
		forgot := h.sink.forgot
		h.sink.mu.Unlock()
		if len(forgot) != 1 || forgot[0].Name != "kapi-1" {
			t.Fatalf("forgotten targets = %v, want [kapi-1]", forgot)
		}
		h.stop()
	})
}

func TestSchedulerConfigValidate(t *testing.T) {
	base := SchedulerConfig{Targets: newTargetSet(0), Scraper: &countingScraper{}, Sink: &seriesSink{}}
	tests := []struct {
		name   string
		mutate func(*SchedulerConfig)
		ok     bool
	}{
		{"defaults", func(*SchedulerConfig) {}, true},
		{"timeout above period", func(c *SchedulerConfig) { c.Period, c.Timeout = time.Minute, 2*time.Minute }, false},
		{"warm-up gap not below period", func(c *SchedulerConfig) { c.Period, c.WarmupGap = 10*time.Second, 10*time.Second }, false},
		{"no sink", func(c *SchedulerConfig) { c.Sink = nil }, false},
		{"negative in flight", func(c *SchedulerConfig) { c.MaxInFlight = -1 }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := base
			tt.mutate(&c)
			c.Default()
			if err := c.Validate(); (err == nil) != tt.ok {
				t.Fatalf("Validate() = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}
