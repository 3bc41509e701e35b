package admission

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/kscale/kscale/internal/promreg"
)

// Metrics are the webhook's Prometheus metrics.
type Metrics struct {
	pods     *prometheus.CounterVec
	vpas     *prometheus.CounterVec
	upstream *upstreamMetrics
}

// NewMetrics creates the webhook's metrics and registers them on reg.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		pods: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "kscale", Subsystem: "vpa_admission", Name: "pods_total",
			Help: "Pod creations reviewed, by outcome (updated, no-recommendation, unmatched, error).",
		}, []string{"outcome"}),
		vpas: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "kscale", Subsystem: "vpa_admission", Name: "vpas_total",
			Help: "VerticalPodAutoscaler creations and updates reviewed, by result (admitted, rejected).",
		}, []string{"result"}),
	}
	if err := promreg.Register(reg, "admission", m.pods, m.vpas); err != nil {
		return nil, err
	}
	var err error
	if m.upstream, err = newUpstreamMetrics(reg); err != nil {
		return nil, err
	}
	return m, nil
}
