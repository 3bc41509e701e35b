package shadow

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/klog/v2"

	"github.com/kscale/kscale/internal/nodeautoscaler/dryrun"
	"github.com/kscale/kscale/internal/promreg"
)

// WatcherConfig configures a Watcher.
type WatcherConfig struct {
	// Comparison configures the comparator.
	Comparison Config
	// Registerer takes kscale_shadow_comparisons_total; nil registers
	// nothing.
	Registerer prometheus.Registerer
	// Record, when set, receives every verdict as one JSON line (the
	// input of `kscale shadow report`).
	Record io.Writer
}

// Watcher is the live side of the comparison: it takes the dry-run
// loop's decisions (as a dryrun.Sink) and upstream's observations from
// any goroutine, and after each loop settles, logs, counts and records
// the verdicts.
type Watcher struct {
	mu       sync.Mutex
	cmp      *Comparator
	targets  Targets
	cands    Candidates
	verdicts *prometheus.CounterVec
	record   *json.Encoder
}

var _ dryrun.Sink = (*Watcher)(nil)

// NewWatcher validates cfg and registers the comparison metric.
func NewWatcher(cfg WatcherConfig) (*Watcher, error) {
	cmp, err := New(cfg.Comparison)
	if err != nil {
		return nil, err
	}
	w := &Watcher{cmp: cmp, verdicts: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "kscale", Subsystem: "shadow", Name: "comparisons_total",
		Help: "Decisions of the dry run compared with the running autoscaler's, by kind (scale_up per pod, scale_down per node, unneeded per group), verdict (agree, disagree) and reason."},
		[]string{"kind", "verdict", "reason"})}
	if err := promreg.Register(cfg.Registerer, "shadow comparison", w.verdicts); err != nil {
		return nil, err
	}
	if cfg.Record != nil {
		w.record = json.NewEncoder(cfg.Record)
	}
	return w, nil
}

// Decided implements dryrun.Sink.
func (w *Watcher) Decided(_ context.Context, d dryrun.Decision) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.cmp.Kscale(d)
}

// Observe takes one observation of the running autoscaler.
func (w *Watcher) Observe(o Observation) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.cmp.Upstream(o)
}

// ObserveStatus takes the running autoscaler's status document (the
// "status" key of its cluster-autoscaler-status ConfigMap).
func (w *Watcher) ObserveStatus(doc string) error {
	perGroup, err := ParseStatus(doc)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.cands.Upstream(perGroup)
	return nil
}

// AfterLoop takes what the loop that started at now saw, then settles the
// verdicts due: each is logged, counted and recorded.
func (w *Watcher) AfterLoop(ctx context.Context, now time.Time, view dryrun.LoopView) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, o := range w.targets.Observe(now, view.Targets) {
		w.cmp.Upstream(o)
	}
	log := klog.FromContext(ctx)
	for _, v := range append(w.cmp.Settle(now), w.cands.Compare(now, view.Unneeded)...) {
		verdict := "disagree"
		if v.Agree {
			verdict = "agree"
		}
		w.verdicts.WithLabelValues(v.Kind, verdict, v.Reason).Inc()
		log.Info("Shadow comparison", "kind", v.Kind, "subject", v.Subject, "verdict", verdict, "reason", v.Reason,
			"kscale", v.Kscale, "upstream", v.Upstream)
		if w.record != nil {
			if err := w.record.Encode(v); err != nil {
				return fmt.Errorf("recording a shadow verdict: %w", err)
			}
		}
	}
	return nil
}
