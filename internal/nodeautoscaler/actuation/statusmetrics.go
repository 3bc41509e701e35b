package actuation

import (
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kscale/kscale/internal/nodeautoscaler/scaledown"
	"github.com/kscale/kscale/internal/promreg"
)

// upstreamUnremovableReasons are upstream's unremovable_nodes_count reasons
// (cluster-autoscaler pkg/simulator/cluster.go), all exported every round.
var upstreamUnremovableReasons = []string{"NoReason", "ScaleDownDisabledAnnotation", "ScaleDownUnreadyDisabled", "NotAutoscaled",
	"NotUnneededLongEnough", "NotUnreadyLongEnough", "NodeGroupMinSizeReached", "NodeGroupMaxDeletionCountReached",
	"AtomicScaleDownFailed", "MinimalResourceLimitExceeded", "CurrentlyBeingDeleted", "NotUnderutilized", "NotUnneededOtherReason",
	"RecentlyUnremovable", "NoPlaceToMovePods", "BlockedByPod", "UnexpectedError", "NoNodeInfo", "BlockedByOnCompletionPod"}

// upstreamReason maps kscale's blocking reasons onto upstream's; the
// pod-level ones are upstream's BlockedByPod. It returns "" for a node
// upstream does not count as unremovable.
func upstreamReason(r scaledown.Reason) string {
	switch r {
	case scaledown.ReasonNotAutoscaled, scaledown.ReasonScaleDownDisabled, scaledown.ReasonMinSize,
		scaledown.ReasonNoPlaceToMove, scaledown.ReasonOnCompletionPod, scaledown.ReasonRecentlyUnremovable, scaledown.ReasonNotExamined,
		scaledown.ReasonAtomicScaleDownFailed:
		return string(r)
	case scaledown.ReasonBeingDeleted:
		return "CurrentlyBeingDeleted"
	case scaledown.ReasonHighUtilization:
		return "NotUnderutilized"
	case scaledown.ReasonSimulationError:
		return "UnexpectedError"
	case scaledown.ReasonGroupCooldown:
		return "" // upstream filters these nodes out of the candidates
	default:
		return "BlockedByPod"
	}
}

// statusMetrics are upstream's scale-down status gauges.
type statusMetrics struct {
	unremovable *prometheus.GaugeVec
	cooldown    prometheus.Gauge
	pending     prometheus.Gauge
}

func newStatusMetrics(reg prometheus.Registerer) (*statusMetrics, error) {
	const ns = "cluster_autoscaler"
	m := &statusMetrics{
		unremovable: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Name: "unremovable_nodes_count",
			Help: "Number of nodes kept by scale-down, by upstream's reason."}, []string{"reason"}),
		cooldown: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: ns, Name: "scale_down_in_cooldown",
			Help: "1 while scale-down waits after a scale-up, deletion or failure (--scale-down-delay-after-*), else 0."}),
		pending: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: ns, Name: "pending_node_deletions",
			Help: "Nodes whose deletion (drain or cloud delete) is in progress."}),
	}
	if err := promreg.Register(reg, "scale-down status", m.unremovable, m.cooldown, m.pending); err != nil {
		return nil, err
	}
	m.observe(scaledown.Plan{}, scaledown.InFlight{})
	return m, nil
}

// observe records a round's plan and the deletions in flight.
func (m *statusMetrics) observe(plan scaledown.Plan, inFlight scaledown.InFlight) {
	counts := map[string]int{}
	for _, b := range plan.Blocked {
		if r := upstreamReason(b.Reason); r != "" {
			counts[r]++
		}
	}
	for _, r := range upstreamUnremovableReasons {
		m.unremovable.WithLabelValues(r).Set(float64(counts[r]))
	}
	cooldown := 0.0
	if strings.HasPrefix(plan.Skipped, "in cooldown") {
		cooldown = 1
	}
	m.cooldown.Set(cooldown)
	m.pending.Set(float64(inFlight.Empty + inFlight.NonEmpty))
}
