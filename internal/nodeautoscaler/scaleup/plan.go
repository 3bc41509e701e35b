package scaleup

import (
	corev1 "k8s.io/api/core/v1"
)

// Increase is one group's size increase in a plan.
type Increase struct {
	// Group is the node group id.
	Group string
	// Delta is how many nodes to add.
	Delta int
	// Pods is how many pending pods the increase is for (for the whole
	// balanced set it belongs to).
	Pods int
}

// GroupReason is why one group was not scaled up for a pod.
type GroupReason struct {
	// Group is the node group id.
	Group string
	// Reason explains, e.g. "max size reached" or "Insufficient memory".
	Reason string
}

// NoScaleUp is a pending pod that triggered no scale-up, with the reason
// per group.
type NoScaleUp struct {
	// Pod is the pending pod.
	Pod *corev1.Pod
	// Reasons are per group, in group order.
	Reasons []GroupReason
}

// Plan is the outcome of one scale-up evaluation.
type Plan struct {
	// Increases are the size increases to make (empty when none).
	Increases []Increase
	// Unschedulable is how many considered pods fit no existing or
	// upcoming node.
	Unschedulable int
	// Considered is how many pods the evaluation looked at after the
	// pod filter and the --max-unschedulable-pods-considered cut.
	Considered int
	// Skipped counts pods left out by the pod filter.
	Skipped Skipped
	// NoScaleUp lists pods that no increase helps, with reasons.
	NoScaleUp []NoScaleUp
	// LimitedBy names a cluster-wide limit that cut the increase.
	LimitedBy string
	// Triggered are the pods the chosen option's estimate placed: the
	// pods that caused the increases.
	Triggered []*corev1.Pod
	// LimitSkips are the groups left out because one more node of theirs
	// would exceed --cores-total or --memory-total, in group order.
	LimitSkips []LimitSkip
	// Binpacking describes each estimate the evaluation ran.
	Binpacking []BinpackingStat
}

// Resources a group can exceed, upstream's resource names.
const (
	ResourceCores  = "cpu"
	ResourceMemory = "memory"
)

// LimitSkip is a group left out of a scale-up because one more node of it
// would exceed cluster-wide resource limits.
type LimitSkip struct {
	// Group is the node group id.
	Group string
	// Resources are the exceeded resources (ResourceCores, ResourceMemory).
	Resources []string
}

// BinpackingStat describes one estimate: the template it packed onto and
// how heterogeneous the pods were.
type BinpackingStat struct {
	// InstanceType is the template's node.kubernetes.io/instance-type label.
	InstanceType string
	// CPU is the template's CPU capacity as a quantity string.
	CPU string
	// Namespaces is how many namespaces the estimated pods come from.
	Namespaces int
	// EquivalenceGroups is how many groups of equivalent pods it packed.
	EquivalenceGroups int
}
