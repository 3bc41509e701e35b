package nodeautoscaler

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/nodeautoscaler/clusterstate"
)

// reportedTaintKeys are the taints node_taints_count reports under their
// own key, as upstream (cluster-autoscaler pkg/utils/taints): the
// autoscaler's deletion taints and the node-condition taints.
var reportedTaintKeys = map[string]bool{
	clusterstate.ToBeDeletedTaint:                    true,
	clusterstate.BeingDeletedTaint:                   true,
	"DeletionCandidateOfClusterAutoscaler":           true,
	corev1.TaintNodeNotReady:                         true,
	corev1.TaintNodeUnreachable:                      true,
	corev1.TaintNodeUnschedulable:                    true,
	corev1.TaintNodeMemoryPressure:                   true,
	corev1.TaintNodeDiskPressure:                     true,
	corev1.TaintNodeNetworkUnavailable:               true,
	corev1.TaintNodePIDPressure:                      true,
	"node.cloudprovider.kubernetes.io/uninitialized": true,
	"node.cloudprovider.kubernetes.io/shutdown":      true,
	"cloud.google.com/impending-node-termination":    true,
	"NodeWithImpairedVolumes":                        true,
}

// Upstream's node_taints_count types of the other taints.
const (
	taintTypeStartup = "startup-taint"
	taintTypeStatus  = "status-taint"
	taintTypeOther   = "other"
)

// taintType is the node_taints_count type of a taint key: the deprecated
// ignore-taint prefix, the key of a well-known taint, startup-taint,
// status-taint or other.
func taintType(key string, rules clusterstate.ReadinessRules, statusTaints []string) string {
	switch {
	case strings.HasPrefix(key, clusterstate.IgnoreTaintPrefix):
		return clusterstate.IgnoreTaintPrefix
	case reportedTaintKeys[key]:
		return key
	case rules.IsStartupTaint(key):
		return taintTypeStartup
	case strings.HasPrefix(key, clusterstate.StatusTaintPrefix) || slices.Contains(statusTaints, key):
		return taintTypeStatus
	default:
		return taintTypeOther
	}
}

// countTaints counts the nodes' taints by type.
func countTaints(nodes []*corev1.Node, rules clusterstate.ReadinessRules, statusTaints []string) map[string]int {
	counts := map[string]int{}
	for _, n := range nodes {
		for _, t := range n.Spec.Taints {
			counts[taintType(t.Key, rules, statusTaints)]++
		}
	}
	return counts
}
