package nodeautoscaler

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/kscale/kscale/internal/nodeautoscaler/clusterstate"
	"github.com/kscale/kscale/internal/promreg"
)

// metrics are the loop's Prometheus series.
type metrics struct {
	inBackoff      *prometheus.GaugeVec
	targetSize     *prometheus.GaugeVec
	failedScaleUps *prometheus.CounterVec
	known          map[string]bool
}

// newMetrics registers the loop's series on reg; node_group_target_count
// only with perGroup (--emit-per-nodegroup-metrics), as upstream.
func newMetrics(reg prometheus.Registerer, perGroup bool) (*metrics, error) {
	m := &metrics{
		inBackoff: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: "cluster_autoscaler", Name: "node_group_in_backoff",
			Help: "1 when the node group is backed off after a failed scale-up, else 0."}, []string{"node_group"}),
		targetSize: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: "cluster_autoscaler", Name: "node_group_target_count",
			Help: "Target size of the node group."}, []string{"node_group"}),
		failedScaleUps: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "cluster_autoscaler", Name: "failed_scale_ups_total",
			Help: "Failed scale-ups by reason (timeout, APIError or the cloud's error code)."}, []string{"reason"}),
		known: map[string]bool{},
	}
	if err := promreg.Register(reg, "node autoscaler", m.inBackoff, m.failedScaleUps); err != nil {
		return nil, err
	}
	if perGroup {
		if err := promreg.Register(reg, "node autoscaler", m.targetSize); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// update sets the per-group series and deletes those of vanished groups.
func (m *metrics) update(groups []clusterstate.GroupState) {
	seen := map[string]bool{}
	for _, g := range groups {
		id := g.Group.ID
		seen[id] = true
		v := 0.0
		if g.Backoff.BackedOff {
			v = 1
		}
		m.inBackoff.WithLabelValues(id).Set(v)
		m.targetSize.WithLabelValues(id).Set(float64(g.Group.TargetSize))
	}
	for id := range m.known {
		if !seen[id] {
			m.inBackoff.DeleteLabelValues(id)
			m.targetSize.DeleteLabelValues(id)
		}
	}
	m.known = seen
}
