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

// template is one node template of an estimate.
type template struct {
	node   *corev1.Node
	alloc  scheduling.Resources
	prefix string
	// empty counts this template's new nodes that hold no pending pod.
	empty int
	// created counts this template's new nodes; room caps it (0: no
	// cap, -1: no new node at all).
	created, room int
	// size is its group's node count before the estimate.
	size int
}

// estimator is the state of one Estimate call.
type estimator struct {
	in        EstimateInput
	r         *run
	templates []*template
	nodes     []*nodeInfo
	tmplOf    []*template
	ds        []*podSpec
	seq       int
	next      int
	// empty counts the new nodes that hold no pending pod; MaxNodes
	// counts only the others.
	empty int
	order []*template
	res   EstimateResult
	// existing are the snapshot's nodes before the estimate added any.
	existing []*nodeInfo
	// slab hands out the new nodes' Node objects in chunks: thousands of
	// separate allocations of a large struct otherwise dominate a big
	// estimate's garbage-collection work.
	slab []corev1.Node
}

// nodeSlabChunk is how many Node objects the slab allocates at once.
const nodeSlabChunk = 64

func newEstimator(snap *Snapshot, in EstimateInput) *estimator {
	e := &estimator{in: in, r: newRun(snap, in.Now), existing: slices.Clone(snap.nodes)}
	for i, n := range append([]*corev1.Node{in.Template}, in.SimilarTemplates...) {
		t := &template{node: n, alloc: scheduling.NodeAllocatable(n), prefix: n.Name}
		if t.prefix == "" {
			t.prefix = "template"
		}
		if i < len(in.Sizes) {
			t.size = in.Sizes[i]
		}
		if i < len(in.Rooms) {
			t.room = max(in.Rooms[i], 0)
			if t.room == 0 {
				t.room = -1
			}
		}
		e.templates = append(e.templates, t)
	}
	for _, p := range in.DaemonSetPods {
		e.ds = append(e.ds, newPodSpec(p, time.Time{}))
	}
	return e
}

// newNode adds a fresh copy of the template with its DaemonSet pods.
func (e *estimator) newNode(t *template) *nodeInfo {
	name := ""
	for {
		e.seq++
		name = t.prefix + "-new-" + strconv.Itoa(e.seq)
		if _, taken := e.r.s.byName[name]; !taken {
			break
		}
	}
	if len(e.slab) == 0 {
		e.slab = make([]corev1.Node, nodeSlabChunk)
	}
	node := &e.slab[0]
	e.slab = e.slab[1:]
	*node = *t.node
	node.Name = name
	node.Labels = maps.Clone(t.node.Labels)
	if node.Labels == nil {
		node.Labels = map[string]string{}
	}
	node.Labels[corev1.LabelHostname] = name
	n := e.r.addNode(node, t.alloc)
	for _, spec := range e.ds {
		p := *spec.pod
		p.Name = spec.pod.Name + "-" + name
		p.Spec.NodeName = name
		e.r.place(&groupState{spec: spec}, &p, n)
	}
	e.nodes = append(e.nodes, n)
	e.tmplOf = append(e.tmplOf, t)
	t.empty++
	t.created++
	e.empty++
	return n
}

// full reports whether MaxNodes nodes hold pending pods or the time
// budget is spent. Nodes left empty (of templates a pod did not fit) do
// not count, so trying several templates does not use up MaxNodes.
func (e *estimator) full() bool {
	return e.atMax() || (e.in.Deadline != nil && e.in.Deadline())
}

func (e *estimator) atMax() bool {
	return e.in.MaxNodes > 0 && len(e.nodes)-e.empty >= e.in.MaxNodes
}

// placeGroup places one group's pods on new nodes, adding nodes as needed.
func (e *estimator) placeGroup(g *group) {
	st := e.r.prepare(g.spec)
	bulk := st.spec.simple() && len(st.existingAnti) == 0 && st.preFilter == nil
	cursor, existing := 0, 0
	pods := g.pods
	for len(pods) > 0 {
		if n := e.existingFit(st, &existing); n != nil {
			e.r.placeMany(st, pods[:1], n)
			e.res.OnExisting = append(e.res.OnExisting, pods[0])
			pods = pods[1:]
			continue
		}
		if i := e.firstFit(st, &cursor); i >= 0 {
			n := e.nodes[i]
			if len(n.pods) == len(e.ds) {
				if e.atMax() {
					e.res.Partial = true
					e.res.Unplaced = append(e.res.Unplaced, pods...)
					return
				}
				e.tmplOf[i].empty--
				e.empty--
			}
			k := 1
			if bulk {
				k = int(min(int64(len(pods)), scheduling.MaxFit(&st.spec.requests, &n.requested, &n.alloc)))
			}
			e.r.placeMany(st, pods[:k], n)
			pods = pods[k:]
			continue
		}
		grown, fe := e.grow(st)
		switch {
		case grown:
			continue
		case fe != nil:
			e.unschedulable(pods, fe)
		default:
			e.res.Partial = true
			e.res.Unplaced = append(e.res.Unplaced, pods...)
		}
		return
	}
}

// existingFit returns an existing node the group fits now that the
// estimate's new nodes changed the topology: a pod whose topology spread
// (minDomains, a domain's count) or pod affinity kept it off the existing
// nodes may fit them once a new node opens a domain. Only such pods are
// tried, and only after a new node exists; others were already checked
// against the existing nodes before the estimate.
func (e *estimator) existingFit(st *groupState, cursor *int) *nodeInfo {
	if st.spec.monotonic() || len(e.nodes) == 0 || len(e.existing) == 0 {
		return nil
	}
	return e.r.firstFit(st, e.existing, cursor)
}

// firstFit returns the index of the first new node with room for the
// group, or -1.
func (e *estimator) firstFit(st *groupState, cursor *int) int {
	if n := e.r.firstFit(st, e.nodes, cursor); n != nil {
		return *cursor
	}
	return -1
}

// grow adds a node from the first template the group fits on, in the
// order of candidates. It returns false with the first template's
// FitError when the group fits no template, or false and nil when
// MaxNodes, the templates' rooms or the time budget stopped it first.
func (e *estimator) grow(st *groupState) (bool, *FitError) {
	var first *FitError
	for k, t := range e.candidates() {
		var fe *FitError
		if empty := e.emptyNode(t); empty != nil || st.preFilter != nil {
			fe = e.explain(st, t, empty)
		} else {
			if t.room < 0 || t.room > 0 && t.created >= t.room {
				continue
			}
			if e.full() {
				return false, nil
			}
			n := e.newNode(t)
			if st.fits(n) {
				e.next = (e.next + k + 1) % len(e.templates)
				return true, nil
			}
			fe = e.explain(st, t, n)
		}
		if first == nil {
			first = fe
		}
	}
	return false, first
}

// candidates returns the templates in the order grow tries them: with
// Sizes, the fewest nodes first (group size plus the estimate's nodes
// holding pods; ties in template order), so similar groups fill up
// evenly; else in rotation from the one after the last used.
func (e *estimator) candidates() []*template {
	e.order = e.order[:0]
	if e.in.Sizes == nil {
		for k := range e.templates {
			e.order = append(e.order, e.templates[(e.next+k)%len(e.templates)])
		}
		return e.order
	}
	e.order = append(e.order, e.templates...)
	slices.SortStableFunc(e.order, func(a, b *template) int {
		return cmp.Compare(a.size+a.created-a.empty, b.size+b.created-b.empty)
	})
	return e.order
}

// emptyNode returns a new node of the template that holds no pending pod.
// The group was already found not to fit on it.
func (e *estimator) emptyNode(t *template) *nodeInfo {
	if t.empty == 0 {
		return nil
	}
	for i, n := range e.nodes {
		if e.tmplOf[i] == t && len(n.pods) == len(e.ds) {
			return n
		}
	}
	return nil
}

// explain returns why the group does not fit an empty node of the template.
func (e *estimator) explain(st *groupState, t *template, n *nodeInfo) *FitError {
	if n == nil {
		n = &nodeInfo{node: t.node, alloc: t.alloc}
	}
	fe := st.check(n)
	if fe == nil {
		fe = &FitError{Filter: FilterNodeResourcesFit, Reason: "does not fit"}
	}
	fe.Node = t.node.Name
	return fe
}

func (e *estimator) unschedulable(pods []*corev1.Pod, fe *FitError) {
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
	for i, n := range e.nodes {
		if len(n.pods) == len(e.ds) {
			continue
		}
		start := len(all)
		for _, pe := range n.pods[len(e.ds):] {
			all = append(all, pe.pod)
		}
		e.res.Nodes = append(e.res.Nodes, NewNode{Node: n.node, Template: e.tmplOf[i].node, Pods: all[start:len(all):len(all)]})
	}
	e.res.NodeCount = len(e.res.Nodes)
	return e.res
}
