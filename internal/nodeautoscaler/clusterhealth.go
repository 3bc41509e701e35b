package nodeautoscaler

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/nodeautoscaler/clusterstate"
	"github.com/kscale/kscale/internal/nodeautoscaler/options"
)

// clusterHealthGate halts the loop while too many nodes are unready
// (--max-total-unready-percentage, --ok-total-unready-count), as upstream
// does: no size repair, scale-up or scale-down until the cluster recovers.
type clusterHealthGate struct {
	rules   clusterstate.ReadinessRules
	limits  clusterstate.HealthLimits
	healthy bool
}

func newClusterHealthGate(rules clusterstate.ReadinessRules, o options.Options) clusterHealthGate {
	return clusterHealthGate{rules: rules, healthy: true, limits: clusterstate.HealthLimits{
		MaxTotalUnreadyPercentage: o.MaxTotalUnreadyPercentage, OkTotalUnreadyCount: o.OkTotalUnreadyCount}}
}

// checkClusterHealth reports whether the loop may act. When it may not, it
// records a ClusterUnhealthy event and forgets the scale-down unneeded
// timers, as upstream does.
func (a *Autoscaler) checkClusterHealth(ctx context.Context, obs *observation, now time.Time) bool {
	listed := func(n *corev1.Node) bool {
		_, ok := a.state.NodeGroupOf(n)
		return ok
	}
	h := clusterstate.CheckClusterHealth(obs.nodes, listed, a.health.rules, a.health.limits, now)
	a.health.healthy = h.Healthy
	if h.Healthy {
		return true
	}
	if a.scaleDowner != nil {
		a.scaleDowner.ctrl.ClearUnneeded()
	}
	a.record(ctx, Event{Type: EventClusterUnhealthy, Reason: "TooManyUnreadyNodes",
		Message: fmt.Sprintf("Cluster is unhealthy: %d of %d nodes unready, more than --ok-total-unready-count %d and --max-total-unready-percentage %g%%",
			h.Unready, h.Total, a.health.limits.OkTotalUnreadyCount, a.health.limits.MaxTotalUnreadyPercentage)})
	return false
}

// ClusterHealthy reports whether the last loop found the cluster within
// the unready limits (upstream's cluster_safe_to_autoscale).
func (a *Autoscaler) ClusterHealthy() bool { return a.health.healthy }

// scaleUpFromZeroAllowed reports whether scale-up may run: with
// --scale-up-from-zero=false, not while no node is ready (upstream skips
// scale-up then; scale-down still runs).
func (a *Autoscaler) scaleUpFromZeroAllowed(obs *observation, now time.Time) bool {
	if a.cfg.Options.ScaleUpFromZero {
		return true
	}
	for _, n := range obs.nodes {
		if a.health.rules.Bucket(n, now) == clusterstate.Ready {
			return true
		}
	}
	return false
}
