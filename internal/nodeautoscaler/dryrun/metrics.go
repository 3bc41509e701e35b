package dryrun

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/kscale/kscale/internal/promreg"
)

// Decision kinds of kscale_shadow_decisions_total.
const (
	DecisionScaleUp            = "scale_up"
	DecisionNoScaleUp          = "no_scale_up"
	DecisionScaleDown          = "scale_down"
	DecisionDeleteNodes        = "delete_nodes"
	DecisionDecreaseTargetSize = "decrease_target_size"
	DecisionUnremovable        = "unremovable"
)

// Metrics are the shadow mode's series, kscale extras beside upstream's.
type Metrics struct {
	decisions  *prometheus.CounterVec
	nodes      *prometheus.CounterVec
	pods       *prometheus.CounterVec
	unneeded   *prometheus.GaugeVec
	suppressed *prometheus.CounterVec
}

// NewMetrics creates the shadow metrics and registers them on reg (nil:
// not registered).
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	const ns, sub = "kscale", "shadow"
	m := &Metrics{
		decisions: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: sub, Name: "decisions_total",
			Help: "Decisions of the dry-run loop by decision (scale_up, no_scale_up, scale_down, delete_nodes, decrease_target_size, unremovable), node group and reason."},
			[]string{"decision", "node_group", "reason"}),
		nodes: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: sub, Name: "scale_up_nodes_total",
			Help: "Nodes the dry-run loop would have added, by node group."}, []string{"node_group"}),
		pods: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: sub, Name: "scale_up_pods_total",
			Help: "Pending pods the dry-run loop's scale-ups would have helped, by node group."}, []string{"node_group"}),
		unneeded: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Subsystem: sub, Name: "unneeded_nodes",
			Help: "Nodes the last dry-run loop found unneeded, by node group."}, []string{"node_group"}),
		suppressed: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: sub, Name: "suppressed_calls_total",
			Help: "Write calls the dry run did not make, by call."}, []string{"call"}),
	}
	if err := promreg.Register(reg, "shadow", m.decisions, m.nodes, m.pods, m.unneeded, m.suppressed); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *Metrics) decision(kind, group, reason string) {
	m.decisions.WithLabelValues(kind, group, reason).Inc()
}

func (m *Metrics) suppress(call string) { m.suppressed.WithLabelValues(call).Inc() }

// setUnneeded replaces the unneeded gauge with counts per group.
func (m *Metrics) setUnneeded(perGroup map[string]int) {
	m.unneeded.Reset()
	for g, n := range perGroup {
		m.unneeded.WithLabelValues(g).Set(float64(n))
	}
}
