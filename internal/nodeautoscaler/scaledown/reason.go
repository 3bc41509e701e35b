package scaledown

import "fmt"

// Reason says why a node is not removed. The values are stable strings used
// in events, simulate output and metrics labels.
type Reason string

// Reasons a node is kept.
const (
	// ReasonNotAutoscaled: the node belongs to no managed node group.
	ReasonNotAutoscaled Reason = "NotAutoscaled"
	// ReasonNodeGroupBlocked: the node's provider blocks scale-down of its
	// whole group for now (for example a rollout in progress); the detail
	// is the provider's reason.
	ReasonNodeGroupBlocked Reason = "NodeGroupScaleDownBlocked"
	// ReasonScaleDownDisabled: the node carries the
	// cluster-autoscaler.kubernetes.io/scale-down-disabled=true annotation.
	ReasonScaleDownDisabled Reason = "ScaleDownDisabledAnnotation"
	// ReasonBeingDeleted: the node is already tainted for deletion.
	ReasonBeingDeleted Reason = "BeingDeleted"
	// ReasonHighUtilization: requests / allocatable is at or over the threshold.
	ReasonHighUtilization Reason = "HighUtilization"
	// ReasonMinSize: removing the node would take its group below its minimum size.
	ReasonMinSize Reason = "NodeGroupMinSizeReached"
	// ReasonBarePod: a pod has no controller, so nothing would recreate it.
	ReasonBarePod Reason = "NotReplicated"
	// ReasonControllerNotFound: a pod's ReplicaSet, StatefulSet, Job or
	// ReplicationController no longer exists, so nothing would recreate it.
	ReasonControllerNotFound Reason = "ControllerNotFound"
	// ReasonJobPod: a pod belongs to a batch Job; Job pods are unmovable
	// with --skip-nodes-with-job-pods (the default).
	ReasonJobPod Reason = "JobPod"
	// ReasonLocalStorage: a pod uses local storage (emptyDir or hostPath)
	// and --skip-nodes-with-local-storage is on.
	ReasonLocalStorage Reason = "LocalStorage"
	// ReasonSystemPod: a kube-system pod without a PodDisruptionBudget runs
	// there and --skip-nodes-with-system-pods is on.
	ReasonSystemPod Reason = "UnmovableKubeSystemPod"
	// ReasonNotSafeToEvict: a pod is annotated
	// cluster-autoscaler.kubernetes.io/safe-to-evict: "false".
	ReasonNotSafeToEvict Reason = "NotSafeToEvict"
	// ReasonOnCompletionPod: a pod is annotated
	// cluster-autoscaler.kubernetes.io/safe-to-evict: "on-completion" and
	// has not finished; upstream's BlockedByOnCompletionPod.
	ReasonOnCompletionPod Reason = "BlockedByOnCompletionPod"
	// ReasonPDB: a pod's PodDisruptionBudget allows no disruption now.
	ReasonPDB Reason = "NotEnoughPDB"
	// ReasonNoPlaceToMove: some pod fits on no other node (resources,
	// affinity, topology spread, taints, ...).
	ReasonNoPlaceToMove Reason = "NoPlaceToMovePods"
	// ReasonSimulationError: the node could not be simulated.
	ReasonSimulationError Reason = "SimulationError"
	// ReasonRecentlyUnremovable: a simulation found the node unremovable
	// less than --unremovable-node-recheck-timeout ago; upstream's name.
	ReasonRecentlyUnremovable Reason = "RecentlyUnremovable"
	// ReasonNotExamined: the node was not simulated this round because of
	// --scale-down-non-empty-candidates-count and the candidates pool
	// limits; upstream's NotUnneededOtherReason.
	ReasonNotExamined Reason = "NotUnneededOtherReason"
	// ReasonGroupCooldown: with --scale-down-delay-type-local, the node's
	// group scaled up, deleted a node or failed to within the matching
	// --scale-down-delay-after-* delay. Upstream drops such nodes from the
	// candidates without a reason, so its unremovable-nodes metric does not
	// count them; neither does ours.
	ReasonGroupCooldown Reason = "NodeGroupInCooldown"
	// ReasonAtomicScaleDownFailed: the node is removable, but its group
	// scales to zero or max and not all of its nodes are (see
	// zeroormax.go); upstream's name.
	ReasonAtomicScaleDownFailed Reason = "AtomicScaleDownFailed"
)

// Blocked is a node that is not removed, and why.
type Blocked struct {
	// Node is the node name.
	Node string
	// Group is the node group id; empty when the node has none.
	Group string
	// Reason is the typed reason.
	Reason Reason
	// Pod is namespace/name of the pod that blocks the node, if one does.
	Pod string
	// Detail adds specifics, such as the failing scheduling filter.
	Detail string
}

// String renders the block for events and simulate output.
func (b Blocked) String() string {
	s := fmt.Sprintf("node %s: %s", b.Node, b.Reason)
	if b.Pod != "" {
		s += " (pod " + b.Pod + ")"
	}
	if b.Detail != "" {
		s += ": " + b.Detail
	}
	return s
}
