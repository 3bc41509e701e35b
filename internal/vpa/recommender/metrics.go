package recommender

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/kscale/kscale/internal/promreg"
)

// metrics are the recommender's Prometheus metrics.
type metrics struct {
	loopDuration          *prometheus.HistogramVec
	recommendationLatency prometheus.Histogram
	aggregates            prometheus.Gauge
	vpas                  *prometheus.GaugeVec
	errors                *prometheus.CounterVec
	checkpointsWritten    prometheus.Counter
	lastLoop              prometheus.Gauge
	upstream              *upstreamMetrics
}

// newMetrics creates the metrics and registers them on reg.
func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		loopDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "kscale", Subsystem: "vpa_recommender", Name: "loop_step_duration_seconds",
			Help:    "Duration of each step of the recommender loop.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 16),
		}, []string{"step"}),
		recommendationLatency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: "kscale", Subsystem: "vpa_recommender", Name: "recommendation_latency_seconds",
			Help:    "Time from a VPA's creation to its first recommendation.",
			Buckets: prometheus.ExponentialBuckets(1, 2, 16),
		}),
		aggregates: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: "kscale", Subsystem: "vpa_recommender", Name: "aggregate_container_states",
			Help: "Number of aggregate container states in the model.",
		}),
		vpas: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "kscale", Subsystem: "vpa_recommender", Name: "vpas",
			Help: "VPAs served by this recommender, by whether they have a recommendation.",
		}, []string{"recommendation"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "kscale", Subsystem: "vpa_recommender", Name: "errors_total",
			Help: "Failed loop steps and writes, by step.",
		}, []string{"step"}),
		checkpointsWritten: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: "kscale", Subsystem: "vpa_recommender", Name: "checkpointed_vpas_total",
			Help: "VPAs whose checkpoints were written.",
		}),
		lastLoop: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: "kscale", Subsystem: "vpa_recommender", Name: "last_loop_timestamp_seconds",
			Help: "Time the last loop completed.",
		}),
	}
	if err := promreg.Register(reg, "recommender", m.loopDuration, m.recommendationLatency, m.aggregates, m.vpas, m.errors, m.checkpointsWritten, m.lastLoop); err != nil {
		return nil, err
	}
	var err error
	if m.upstream, err = newUpstreamMetrics(reg); err != nil {
		return nil, err
	}
	return m, nil
}
