package scaleup

// Zero-or-max groups (upstream's ZeroOrMaxNodeScaling option), as
// upstream's scale-up orchestrator treats them:
//
//   - A group is left out when growing it to its max size would take the
//     cluster over --max-nodes-total ("atomic scale-up exceeds cluster node
//     count limit"), or over --cores-total or --memory-total (the resource
//     check counts every node the increase adds, not one).
//   - Its estimate runs as for any group; when it places a pod, the
//     option's node count becomes the group's max size (what the expander
//     compares) and the increase takes the group from its target to its
//     max size at once.
//   - It is never balanced with similar groups, neither as the chosen
//     group nor as one of the others' set.
//   - --max-nodes-per-scaleup does not cut its increase (upstream applies
//     that flag only to the estimate); the other limits cannot, as the
//     group was left out when they would.

// zeroOrMaxNodesReason is the verdict of a zero-or-max group whose whole
// increase would exceed --max-nodes-total; upstream's words.
const zeroOrMaxNodesReason = "atomic scale-up exceeds cluster node count limit"

// newNodes is how many nodes a group adds when it grows: its whole room
// for a zero-or-max group, else one (for the limit checks).
func newNodes(g Group) int {
	if g.ZeroOrMax {
		return g.Max - g.Target
	}
	return 1
}

// zeroOrMaxOverNodes reports whether growing g to its max size would take
// the cluster over --max-nodes-total.
func zeroOrMaxOverNodes(l Limits, g Group) bool {
	return l.MaxNodesTotal > 0 && l.Nodes+newNodes(g) > l.MaxNodesTotal
}

// zeroOrMaxIncrease returns the node count an option of a zero-or-max
// group offers the expander (its max size, as upstream) and its one
// increase, to its max size, for pods pending pods.
func zeroOrMaxIncrease(g Group, pods int) (int, []Increase) {
	return g.Max, []Increase{{Group: g.ID, Delta: g.Max - g.Target, Pods: pods}}
}

// isZeroOrMax reports whether the group with the id is zero-or-max.
func isZeroOrMax(in Input, id string) bool {
	for _, g := range in.Groups {
		if g.ID == id {
			return g.ZeroOrMax
		}
	}
	return false
}

// limitsFor returns the limits the chosen group's increases are cut to:
// without --max-nodes-per-scaleup for a zero-or-max group.
func limitsFor(in Input, id string) Limits {
	l := in.Limits
	if isZeroOrMax(in, id) {
		l.MaxNodesPerScaleUp = 0
	}
	return l
}
