package updater

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/kscale/kscale/internal/promreg"
)

// Metrics are the updater's Prometheus metrics.
type Metrics struct {
	evictions      *prometheus.CounterVec
	failures       *prometheus.CounterVec
	inPlace        *prometheus.CounterVec
	loops          *prometheus.CounterVec
	candidates     prometheus.Gauge
	loopDurationSe prometheus.Histogram
	upstream       *upstreamMetrics
}

// NewMetrics creates the updater's metrics and registers them on reg.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		evictions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "kscale", Subsystem: "vpa_updater", Name: "evictions_total",
			Help: "Pods evicted, by reason (OutsideRecommendedRange, QuickOOM, Drift, ResizeFallback).",
		}, []string{"reason"}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "kscale", Subsystem: "vpa_updater", Name: "eviction_failures_total",
			Help: "Evictions the API server refused, by cause (DisruptionBudget, Error).",
		}, []string{"cause"}),
		inPlace: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "kscale", Subsystem: "vpa_updater", Name: "in_place_updates_total",
			Help: "In-place resizes requested, by result (Applied, Error, Unboosted, UnboostError).",
		}, []string{"result"}),
		loops: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "kscale", Subsystem: "vpa_updater", Name: "loops_total",
			Help: "Updater loops, by result (Completed, SkippedAdmissionNotReady, Error).",
		}, []string{"result"}),
		candidates: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: "kscale", Subsystem: "vpa_updater", Name: "candidates",
			Help: "Pods worth updating found by the last loop.",
		}),
		loopDurationSe: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: "kscale", Subsystem: "vpa_updater", Name: "loop_duration_seconds",
			Help: "Duration of one updater loop.", Buckets: prometheus.ExponentialBuckets(0.01, 2, 14),
		}),
	}
	if err := promreg.Register(reg, "updater", m.evictions, m.failures, m.inPlace, m.loops, m.candidates, m.loopDurationSe); err != nil {
		return nil, err
	}
	var err error
	if m.upstream, err = newUpstreamMetrics(reg); err != nil {
		return nil, err
	}
	return m, nil
}
