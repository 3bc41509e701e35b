package clusterstate

import (
	"time"

	corev1 "k8s.io/api/core/v1"
)

// HealthLimits are the unready-node limits beyond which the autoscaler
// halts, as upstream's --max-total-unready-percentage and
// --ok-total-unready-count.
type HealthLimits struct {
	// MaxTotalUnreadyPercentage is the share of unready nodes (0-100) the
	// cluster may have beyond OkTotalUnreadyCount.
	MaxTotalUnreadyPercentage float64
	// OkTotalUnreadyCount unready nodes are always tolerated.
	OkTotalUnreadyCount int
}

// ClusterHealth is the result of CheckClusterHealth.
type ClusterHealth struct {
	// Healthy is false when the autoscaler must halt.
	Healthy bool
	// Unready counts nodes that were ready and are not, and nodes that
	// stayed not ready past --max-node-startup-time.
	Unready int
	// Total counts every node of the cluster, autoscaled or not.
	Total int
}

// CheckClusterHealth counts the cluster's unready nodes as upstream does
// (nodes being deleted, by the rules' CountBucket, and nodes still within
// their start-up time do not count) and reports the cluster unhealthy when
// more than OkTotalUnreadyCount are unready and they exceed
// MaxTotalUnreadyPercentage of all nodes. listed says whether a node's
// provider ID is among the provider's instances.
func CheckClusterHealth(nodes []*corev1.Node, listed func(*corev1.Node) bool, rules ReadinessRules, limits HealthLimits, now time.Time) ClusterHealth {
	h := ClusterHealth{Total: len(nodes)}
	for _, n := range nodes {
		switch rules.CountBucket(n, listed(n), now) {
		case Unready, LongNotStarted:
			h.Unready++
		}
	}
	h.Healthy = h.Unready <= limits.OkTotalUnreadyCount ||
		float64(h.Unready) <= limits.MaxTotalUnreadyPercentage/100*float64(h.Total)
	return h
}
