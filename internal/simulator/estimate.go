package simulator

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/scheduling"
)

// EstimateInput describes one binpacking estimate for a node group.
type EstimateInput struct {
	// Template is the node every new node is a copy of: labels (zone,
	// instance type...), taints and allocatable. New nodes get unique names
	// and kubernetes.io/hostname labels and keep the other labels, so they
	// join the template's zone and existing topology domains.
	Template *corev1.Node
	// DaemonSetPods run on every new node before any pending pod.
	DaemonSetPods []*corev1.Pod
	// Pods are the pending pods to place.
	Pods []*corev1.Pod
	// MaxNodes caps the number of new nodes; 0 means no cap.
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
}

// Estimate answers "how many nodes like the template would these pending
// pods need?": it places pod groups (priority first, then larger pods
// first) on new nodes only, first fit, creating a node when no new node
// has room, and honours every filter against the existing cluster too
// (topology domains, anti-affinity of bound pods). The snapshot is left
// unchanged.
func Estimate(snap *Snapshot, in EstimateInput) EstimateResult {
	snap.Fork()
	defer snap.Revert()
	e := newEstimator(snap, in)
	groups := snap.groupPods(in.Pods, in.Now)
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
	return e.result()
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

// estimator is the state of one Estimate call.
type estimator struct {
	in     EstimateInput
	r      *run
	nodes  []*nodeInfo
	ds     []*podSpec
	seq    int
	empty  int
	alloc  scheduling.Resources
	prefix string
	res    EstimateResult
}

func newEstimator(snap *Snapshot, in EstimateInput) *estimator {
	e := &estimator{in: in, r: newRun(snap, in.Now), prefix: in.Template.Name, alloc: scheduling.NodeAllocatable(in.Template)}
	if e.prefix == "" {
		e.prefix = "template"
	}
	for _, p := range in.DaemonSetPods {
		e.ds = append(e.ds, newPodSpec(p, time.Time{}))
	}
	return e
}

// newNode adds a fresh copy of the template with its DaemonSet pods.
func (e *estimator) newNode() *nodeInfo {
	name := ""
	for {
		e.seq++
		name = e.prefix + "-new-" + strconv.Itoa(e.seq)
		if _, taken := e.r.s.byName[name]; !taken {
			break
		}
	}
	node := *e.in.Template
	node.Name = name
	node.Labels = maps.Clone(e.in.Template.Labels)
	if node.Labels == nil {
		node.Labels = map[string]string{}
	}
	node.Labels[corev1.LabelHostname] = name
	n := e.r.addNode(&node, e.alloc)
	for _, spec := range e.ds {
		p := *spec.pod
		p.Name = spec.pod.Name + "-" + name
		p.Spec.NodeName = name
		e.r.place(&groupState{spec: spec}, &p, n)
	}
	e.nodes = append(e.nodes, n)
	e.empty++
	return n
}

func (e *estimator) full() bool {
	return (e.in.MaxNodes > 0 && len(e.nodes) >= e.in.MaxNodes) || (e.in.Deadline != nil && e.in.Deadline())
}

// placeGroup places one group's pods on new nodes, adding nodes as needed.
func (e *estimator) placeGroup(g *group) {
	st := e.r.prepare(g.spec)
	bulk := st.spec.simple() && len(st.existingAnti) == 0 && st.preFilter == nil
	cursor := 0
	pods := g.pods
	for len(pods) > 0 {
		if n := e.r.firstFit(st, e.nodes, &cursor); n != nil {
			k := 1
			if bulk {
				k = int(min(int64(len(pods)), scheduling.MaxFit(&st.spec.requests, &n.requested, &n.alloc)))
			}
			if len(n.pods) == len(e.ds) {
				e.empty--
			}
			e.r.placeMany(st, pods[:k], n)
			pods = pods[k:]
			continue
		}
		if empty := e.emptyNode(); empty != nil || st.preFilter != nil {
			e.unschedulable(pods, st, empty)
			return
		}
		if e.full() {
			e.res.Partial = true
			e.res.Unplaced = append(e.res.Unplaced, pods...)
			return
		}
		if n := e.newNode(); !st.fits(n) {
			e.unschedulable(pods, st, n)
			return
		}
	}
}

// emptyNode returns a new node that holds no pending pod, if any.
func (e *estimator) emptyNode() *nodeInfo {
	if e.empty == 0 {
		return nil
	}
	for _, n := range e.nodes {
		if len(n.pods) == len(e.ds) {
			return n
		}
	}
	return nil
}

func (e *estimator) unschedulable(pods []*corev1.Pod, st *groupState, n *nodeInfo) {
	var fe *FitError
	if n != nil {
		fe = st.check(n)
	} else {
		fe = st.check(&nodeInfo{node: e.in.Template, alloc: scheduling.NodeAllocatable(e.in.Template)})
	}
	if fe == nil {
		fe = &FitError{Node: e.in.Template.Name, Filter: FilterNodeResourcesFit, Reason: "does not fit"}
	}
	fe.Node = e.in.Template.Name
	for _, p := range pods {
		e.res.Unschedulable = append(e.res.Unschedulable, PodFitError{Pod: p, Err: fe})
	}
}

func (e *estimator) result() EstimateResult {
	total := 0
	for _, n := range e.nodes {
		total += len(n.pods) - len(e.ds)
	}
	all := make([]*corev1.Pod, 0, total)
	for _, n := range e.nodes {
		if len(n.pods) == len(e.ds) {
			continue
		}
		start := len(all)
		for _, pe := range n.pods[len(e.ds):] {
			all = append(all, pe.pod)
		}
		e.res.Nodes = append(e.res.Nodes, NewNode{Node: n.node, Pods: all[start:len(all):len(all)]})
	}
	e.res.NodeCount = len(e.res.Nodes)
	return e.res
}
