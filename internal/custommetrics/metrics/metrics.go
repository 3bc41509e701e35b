// Package metrics defines the custom metrics provider's own Prometheus
// metrics, registered on an injected registerer.
package metrics

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kscale/kscale/internal/promreg"
)

const namespace = "kscale_custom_metrics"

// Gauges are read at collection time.
type Gauges struct {
	// Targets returns how many pods are being scraped.
	Targets func() int
	// Stale returns how many targets have no sample within the maximum sample age.
	Stale func() int
}

// Metrics are the provider's metrics.
type Metrics struct {
	scrapeDuration *prometheus.HistogramVec
	scrapeErrors   *prometheus.CounterVec
	filtered       *prometheus.CounterVec
}

// New registers the metrics on reg.
func New(reg prometheus.Registerer, g Gauges) (*Metrics, error) {
	if g.Targets == nil || g.Stale == nil {
		return nil, errors.New("gauges: targets and stale are required")
	}
	m := &Metrics{
		scrapeDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Name: "scrape_duration_seconds",
			Help:    "Duration of kube-apiserver metrics scrapes, successful or not, by namespace.",
			Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"namespace"}),
		scrapeErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "scrape_errors_total",
			Help: "Failed kube-apiserver metrics scrapes by namespace and reason.",
		}, []string{"namespace", "reason"}),
		filtered: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "filtered_scrapes_total",
			Help: "Successful scrapes answered by the pod's metrics-filter sidecar, by namespace.",
		}, []string{"namespace"}),
	}
	collectors := []prometheus.Collector{
		m.scrapeDuration, m.scrapeErrors, m.filtered,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Namespace: namespace, Name: "targets", Help: "kube-apiserver pods being scraped.",
		}, func() float64 { return float64(g.Targets()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Namespace: namespace, Name: "stale_targets",
			Help: "Targets without a sample within the maximum sample age; they serve no value.",
		}, func() float64 { return float64(g.Stale()) }),
	}
	if err := promreg.Register(reg, "custom metrics provider", collectors...); err != nil {
		return nil, err
	}
	return m, nil
}

// ObserveScrape records one scrape of a target in namespace; reason is
// empty on success, filtered says the metrics-filter sidecar answered.
func (m *Metrics) ObserveScrape(namespace string, took time.Duration, reason string, filtered bool) {
	m.scrapeDuration.WithLabelValues(namespace).Observe(took.Seconds())
	if reason != "" {
		m.scrapeErrors.WithLabelValues(namespace, reason).Inc()
	}
	if filtered {
		m.filtered.WithLabelValues(namespace).Inc()
	}
}

// ForgetNamespace drops the series of a namespace that has no targets left.
func (m *Metrics) ForgetNamespace(namespace string) {
	m.scrapeDuration.DeleteLabelValues(namespace)
	m.scrapeErrors.DeletePartialMatch(prometheus.Labels{"namespace": namespace})
	m.filtered.DeleteLabelValues(namespace)
}
