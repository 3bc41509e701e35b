package simulator

import (
	"time"

	corev1 "k8s.io/api/core/v1"
)

// FilterOptions tunes FilterSchedulable.
type FilterOptions struct {
	// Now is the simulated current time; it decides the topology-spread
	// timeout (SpreadTimeoutAnnotation). The zero time disables the timeout.
	Now time.Time
	// IgnoreNodeName places every pod as if its spec.nodeName were empty,
	// as when pods evicted from a removed node are rescheduled: the caller
	// passes bound pods as they are instead of unbound copies. The snapshot
	// then holds them with spec.nodeName as it was.
	IgnoreNodeName bool
}

// Placement is one pod placed on a node by the simulation.
type Placement struct {
	// Pod is the pod as passed in (not modified).
	Pod *corev1.Pod
	// NodeName is the node it was placed on.
	NodeName string
}

// FilterResult is what FilterSchedulable decided.
type FilterResult struct {
	// Placements lists the pods that fit, in placement order.
	Placements []Placement
	// Remaining lists the pods that fit on no node, in scheduling order
	// (in input order when the snapshot has no nodes).
	Remaining []*corev1.Pod
}

// CheckFit reports whether the pod fits on the named node given everything
// in the snapshot, running every filter in kube-scheduler's order. It
// returns nil when the pod fits, else the first failing filter. The pod
// must not itself be bound in the snapshot. The spread timeout is not
// applied; see CheckFitAt.
func (s *Snapshot) CheckFit(pod *corev1.Pod, nodeName string) *FitError {
	return s.CheckFitAt(pod, nodeName, time.Time{})
}

// CheckFitAt is CheckFit with the simulated time now, which decides the
// topology-spread timeout.
func (s *Snapshot) CheckFitAt(pod *corev1.Pod, nodeName string, now time.Time) *FitError {
	n, ok := s.byName[nodeName]
	if !ok {
		return &FitError{Node: nodeName, Filter: FilterNodeNotFound, Reason: "node not in the snapshot"}
	}
	g := newRun(s, now).prepare(newPodSpec(pod, now))
	return g.check(n)
}

// FilterSchedulable places pending pods onto the snapshot's nodes, as
// kube-scheduler would find them feasible: groups of equivalent pods in
// scheduling order (priority, then creation time), each pod on the first
// node in snapshot order that passes every filter. It binds the placed
// pods in the snapshot; callers that want to keep the snapshot Fork first.
func FilterSchedulable(snap *Snapshot, pods []*corev1.Pod, opts FilterOptions) FilterResult {
	if len(snap.nodes) == 0 {
		return FilterResult{Remaining: append([]*corev1.Pod(nil), pods...)}
	}
	groups := snap.groupPods(pods, opts.Now, opts.IgnoreNodeName)
	sortForScheduling(groups)
	r := newRun(snap, opts.Now)
	var res FilterResult
	var left []*group
	for _, g := range groups {
		st := r.prepare(g.spec)
		cursor := 0
		for i, pod := range g.pods {
			n := r.firstFit(st, snap.nodes, &cursor)
			if n == nil {
				res.Remaining = append(res.Remaining, g.pods[i:]...)
				left = append(left, &group{spec: g.spec, pods: g.pods[i:], earliest: g.earliest})
				break
			}
			r.place(st, pod, n)
			res.Placements = append(res.Placements, Placement{Pod: pod, NodeName: n.node.Name})
		}
	}
	// The estimates that follow usually take exactly the remaining pods.
	snap.rememberGroups(res.Remaining, opts.Now, opts.IgnoreNodeName, left)
	return res
}

// firstFit returns the first node from *cursor on (wrapping around) where
// one more pod of the group fits, moving the cursor to it; nil when none.
// For groups whose fit only shrinks as pods are added, nodes before the
// cursor are not retried.
func (r *run) firstFit(st *groupState, nodes []*nodeInfo, cursor *int) *nodeInfo {
	if st.preFilter != nil {
		return nil
	}
	start, count := *cursor, len(nodes)
	if st.spec.monotonic() {
		count -= start
	}
	for k := 0; k < count; k++ {
		i := (start + k) % len(nodes)
		if st.fits(nodes[i]) {
			*cursor = i
			return nodes[i]
		}
	}
	if st.spec.monotonic() {
		*cursor = len(nodes)
	}
	return nil
}
