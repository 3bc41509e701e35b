package scaledown

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/simulator"
)

// Node is one cluster node as scale-down sees it.
type Node struct {
	// Node is the Node object.
	Node *corev1.Node
	// Group is the node group id; empty for nodes no group manages.
	Group string
	// Instance is the cloud instance id, used to delete the node.
	Instance string
	// Ready is the autoscaler's readiness (kubelet Ready and no startup taint).
	Ready bool
}

// Group is one node group's sizes.
type Group struct {
	// ID is the node group id.
	ID string
	// MinSize is the smallest target size allowed.
	MinSize int
	// TargetSize is the current target size.
	TargetSize int
	// Deleting is how many of its nodes are being deleted right now.
	Deleting int
	// Blocked, when set, is the provider's reason why none of the group's
	// nodes may be removed now.
	Blocked string
	// Options are the group's own settings over the global Config.
	Options cloudprovider.Options
}

// InFlight counts the deletions in progress.
type InFlight struct {
	// Empty is the number of empty nodes being deleted.
	Empty int
	// NonEmpty is the number of nodes being drained or deleted after a drain.
	NonEmpty int
}

// Input is everything one planning round reads.
type Input struct {
	// Nodes are every node of the cluster, with their group.
	Nodes []Node
	// Pods are the pods bound to the nodes; pods of nodes not in Nodes are
	// ignored.
	Pods []*corev1.Pod
	// PodsOn, when set, returns the pods of Pods bound to a node, in
	// Pods' order, and Pods is not read: a caller that keeps the pods by
	// node saves the planner a pass over every pod. Its lists are not
	// modified.
	PodsOn func(node string) []*corev1.Pod
	// Placed are pending pods the loop found room for on existing nodes;
	// they count as running there.
	Placed []simulator.Placement
	// PDBs are every PodDisruptionBudget.
	PDBs []*policyv1.PodDisruptionBudget
	// Namespaces, PersistentVolumes, PersistentVolumeClaims,
	// StorageClasses and CSINodes feed the simulator's namespaceSelector
	// and volume filters; they may be nil.
	Namespaces             []*corev1.Namespace
	PersistentVolumes      []*corev1.PersistentVolume
	PersistentVolumeClaims []*corev1.PersistentVolumeClaim
	StorageClasses         []*storagev1.StorageClass
	CSINodes               []*storagev1.CSINode
	// Controllers, when set, finds the pods' ReplicaSets, StatefulSets,
	// Jobs and ReplicationControllers: a pod whose controller is gone
	// blocks its node (ReasonControllerNotFound). Nil: every controller is
	// taken to exist.
	Controllers ControllerLookup
	// Snapshot, when set, is the loop's snapshot of the cluster (the ready
	// nodes and the pods bound to them, kept current between loops). The
	// planner simulates on it inside a Fork of its own and Reverts before
	// returning, so it is left exactly as passed. Nodes it holds with the same
	// Node object and exactly the node's pods in Pods are used as they are;
	// the planner adds, replaces or removes every other node for its
	// simulation. Nil: the planner builds its own snapshot from Nodes and
	// Pods.
	Snapshot *simulator.Snapshot
	// Groups are the managed node groups.
	Groups []Group
	// InFlight counts deletions the actuator is carrying out.
	InFlight InFlight
	// SchedulablePending is true when pending pods fit on existing nodes
	// this loop; scale-down then waits unless IgnoreSchedulablePods.
	SchedulablePending bool
	// LastScaleUp, LastDeletion and LastFailure are when the last scale-up,
	// node deletion and failed scale-down happened (zero: never).
	LastScaleUp, LastDeletion, LastFailure time.Time
	// GroupLastScaleUp, GroupLastDeletion and GroupLastFailure are the
	// same times per node group id, which --scale-down-delay-type-local
	// reads instead. The planner does not modify them.
	GroupLastScaleUp, GroupLastDeletion, GroupLastFailure map[string]time.Time
	// Now is the loop time.
	Now time.Time
	// groupCfg are the round's settings of groups with own options (Plan
	// sets them).
	groupCfg groupConfigs
}

// Candidate is a node found removable.
type Candidate struct {
	// Node is the Node object.
	Node *corev1.Node
	// Group is the node group id.
	Group string
	// Instance is the cloud instance id.
	Instance string
	// Ready is the node's readiness.
	Ready bool
	// Empty is true when no pod needs to move.
	Empty bool
	// Utilization is requests / allocatable (see Utilization).
	Utilization float64
	// UnneededSince is when the node was first found removable without a break.
	UnneededSince time.Time
	// Pods are the pods to evict, in the order they were bound.
	Pods []*corev1.Pod
}

// Plan is the result of one planning round.
type Plan struct {
	// Unneeded are the nodes removable now, empty ones first.
	Unneeded []Candidate
	// Blocked are the nodes kept, with their reason, in node name order.
	Blocked []Blocked
	// Empty are the empty nodes to delete now, in bulk.
	Empty []Candidate
	// Drain are the nodes to drain and then delete now.
	Drain []Candidate
	// Atomic names the zero-or-max groups taken whole this round, in the
	// order they were taken: their nodes in Empty and Drain are deleted
	// all together in one provider call once every one is ready, or none
	// is (see zeroormax.go).
	Atomic []string
	// Skipped, when set, says why nothing is deleted this round.
	Skipped string
}
