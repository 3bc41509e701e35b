package simulator

import (
	"cmp"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/scheduling"
)

// EstimateInput describes one binpacking estimate for a node group.
type EstimateInput struct {
	// Template is the node every new node is a copy of (required; without
	// it every pod is reported unschedulable): labels (zone,
	// instance type...), taints and allocatable. New nodes get unique names
	// and kubernetes.io/hostname labels and keep the other labels, so they
	// join the template's zone and existing topology domains.
	Template *corev1.Node
	// SimilarTemplates are further templates new nodes may be copied from,
	// typically the same pool in other zones (balanced similar node
	// groups). When no new node has room, the estimate adds a node from the
	// templates in rotation, skipping those the pod does not fit, so
	// zonal spread and anti-affinity can use every zone. Optional.
	SimilarTemplates []*corev1.Node
	// Sizes, when set, holds the node count of each template's group
	// (Template first, then SimilarTemplates). A new node then comes from
	// the template with the fewest nodes, counting the estimate's own
	// nodes, that the pod fits (ties in template order), as balancing
	// similar node groups fills the smallest group first; without it the
	// templates take turns. Optional.
	Sizes []int
	// Rooms, when set, caps the new nodes of each template (same order);
	// a template with a room of 0 or less gets none. nil means no caps
	// beyond MaxNodes.
	Rooms []int
	// DaemonSetPods run on every new node before any pending pod.
	DaemonSetPods []*corev1.Pod
	// Pods are the pending pods to place.
	Pods []*corev1.Pod
	// MaxNodes caps the number of new nodes that receive pending pods; 0
	// means no cap.
	MaxNodes int
	// Deadline reports whether the time budget is spent; it is called
	// before each group and each new node. nil means no budget. Build it
	// from an injected clock, for example
	// func() bool { return !clk.Now().Before(deadline) }.
	Deadline func() bool
	// Now is the simulated current time, for the topology-spread timeout.
	Now time.Time
}

// NewNode is one node the estimate adds and the pending pods placed on it.
type NewNode struct {
	// Node is the new node (sharing the template's spec and status).
	Node *corev1.Node
	// Template is the template it copies: Template or one of
	// SimilarTemplates.
	Template *corev1.Node
	// Pods are the pending pods placed on it (DaemonSet pods excluded).
	Pods []*corev1.Pod
}

// PodFitError is a pod that cannot run on a new node, and why.
type PodFitError struct {
	// Pod is the pending pod.
	Pod *corev1.Pod
	// Err is the first failing filter on an empty new node.
	Err *FitError
}

// EstimateResult is what Estimate decided.
type EstimateResult struct {
	// NodeCount is the number of new nodes that received pending pods.
	NodeCount int
	// Nodes are those nodes, in creation order.
	Nodes []NewNode
	// Unschedulable lists pods that do not fit even on an empty new node.
	Unschedulable []PodFitError
	// Unplaced lists pods not tried or not placed because MaxNodes or the
	// time budget stopped the estimate.
	Unplaced []*corev1.Pod
	// Partial is true when MaxNodes or the time budget stopped the estimate.
	Partial bool
	// EquivalenceGroups is how many groups of equivalent pods the estimate
	// placed (or tried to): upstream's binpacking heterogeneity.
	EquivalenceGroups int
	// OnExisting lists pods placed on existing nodes: their topology
	// spread or pod affinity kept them off those nodes until the
	// estimate's new nodes opened a domain, so the new nodes help them
	// too.
	OnExisting []*corev1.Pod
}

// Estimate answers "how many nodes like the template would these pending
// pods need?": it places pod groups (priority first, then larger pods
// first) on new nodes only, first fit, creating a node when no new node
// has room, and honours every filter against the existing cluster too
// (topology domains, anti-affinity of bound pods). The snapshot is left
// unchanged.
func Estimate(snap *Snapshot, in EstimateInput) EstimateResult {
	if in.Template == nil {
		var res EstimateResult
		fe := &FitError{Filter: FilterNodeNotFound, Reason: "no node template"}
		for _, p := range in.Pods {
			res.Unschedulable = append(res.Unschedulable, PodFitError{Pod: p, Err: fe})
		}
		return res
	}
	snap.Fork()
	defer snap.Revert()
	e := newEstimator(snap, in)
	groups := snap.groupPods(in.Pods, in.Now, false)
	sortForEstimate(groups, scheduling.NodeAllocatable(in.Template))
	for i, g := range groups {
		if in.Deadline != nil && in.Deadline() {
			e.res.Partial = true
			for _, rest := range groups[i:] {
				e.res.Unplaced = append(e.res.Unplaced, rest.pods...)
			}
			break
		}
		e.placeGroup(g)
	}
	res := e.result()
	res.EquivalenceGroups = len(groups)
	return res
}

func sortForEstimate(groups []*group, alloc scheduling.Resources) {
	for _, g := range groups {
		g.spec.size = share(g.spec.requests.MilliCPU, alloc.MilliCPU) + share(g.spec.requests.Memory, alloc.Memory)
	}
	slices.SortStableFunc(groups, func(a, b *group) int {
		if c := cmp.Compare(b.spec.priority, a.spec.priority); c != 0 {
			return c
		}
		return cmp.Compare(b.spec.size, a.spec.size)
	})
}

func share(req, alloc int64) float64 {
	if alloc <= 0 {
		return 0
	}
	return float64(req) / float64(alloc)
}
