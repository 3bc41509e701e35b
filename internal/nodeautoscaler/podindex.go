package nodeautoscaler

import (
	"cmp"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// podClass is what the loop makes of a pod.
type podClass uint8

const (
	classOther podClass = iota
	// classUnbound is a pod no node runs yet that may still run: not
	// bound, not terminating, not finished. Every pod the loop may try to
	// help is one (whatever the scheduler name flags select).
	classUnbound
	classBound
)

func classOf(p *corev1.Pod) podClass {
	switch {
	case isUnboundActive(p):
		return classUnbound
	case isActiveBound(p):
		return classBound
	}
	return classOther
}

// isUnboundActive reports whether the pod waits for a node: not bound, not
// terminating, not finished.
func isUnboundActive(p *corev1.Pod) bool {
	return p.Spec.NodeName == "" && p.DeletionTimestamp == nil && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed
}

// indexEntry is one pod of the index.
type indexEntry struct {
	pod   *corev1.Pod
	class podClass
	// node is the name of the node whose list holds the entry ("" for
	// none).
	node string
	// seq is the entry's place in the index order.
	seq uint64
}

// nodeEntries are the entries of the pods that occupy one node, in index
// order, and the version of that list.
type nodeEntries struct {
	entries []*indexEntry
	// pods is entries' pods, built on first use after a change; never
	// modified once handed out.
	pods    []*corev1.Pod
	version uint64
}

// PodIndex sorts a cluster's pods out as the loop observes them: the pods
// that wait for a node (oldest first), the pods that occupy a node (in the
// order the pods were first set), and those per node with a version that
// changes whenever the node's pods change. It is fed every change (Set,
// Delete) and rebuilds a list only when it is asked for one after a
// change. Lists it returns are never modified afterwards. Stored pods are
// referenced, never copied or modified. It is not safe for concurrent use.
type PodIndex struct {
	entries map[types.NamespacedName]*indexEntry
	// order holds the entries in the order their names were first set
	// (by seq); deleted entries stay, without a pod, until they are half
	// of it.
	order   []*indexEntry
	holes   int
	nextSeq uint64
	// unbound holds the entries of pods that wait for a node; bound counts
	// those that occupy a node.
	unbound map[*indexEntry]struct{}
	bound   int
	nodes   map[string]*nodeEntries
	// gen counts changes; node versions are drawn from it.
	gen uint64
	// unboundList and boundList are the lists of the last build, valid
	// unless marked stale.
	unboundList, boundList   []*corev1.Pod
	unboundStale, boundStale bool
}

// NewPodIndex returns an empty index.
func NewPodIndex() *PodIndex {
	return &PodIndex{entries: map[types.NamespacedName]*indexEntry{}, unbound: map[*indexEntry]struct{}{},
		nodes: map[string]*nodeEntries{}, unboundStale: true, boundStale: true}
}

// Gen returns the index's generation, which every change advances.
func (x *PodIndex) Gen() uint64 { return x.gen }

// Len returns the number of pods.
func (x *PodIndex) Len() int { return len(x.entries) }

// Set stores p, replacing the pod of its namespace and name; a new name
// goes to the end of the order, a replaced one keeps its place.
func (x *PodIndex) Set(p *corev1.Pod) {
	x.gen++
	k := types.NamespacedName{Namespace: p.Namespace, Name: p.Name}
	e, ok := x.entries[k]
	if !ok {
		e = &indexEntry{seq: x.nextSeq}
		x.nextSeq++
		x.entries[k] = e
		x.order = append(x.order, e)
	} else {
		x.unlink(e)
	}
	e.pod, e.class = p, classOf(p)
	x.link(e)
}

// Delete removes the pod of the namespace and name, if stored.
func (x *PodIndex) Delete(namespace, name string) {
	k := types.NamespacedName{Namespace: namespace, Name: name}
	e, ok := x.entries[k]
	if !ok {
		return
	}
	x.gen++
	x.unlink(e)
	delete(x.entries, k)
	e.pod = nil
	x.holes++
	if x.holes > 64 && x.holes*2 > len(x.order) {
		x.order = slices.DeleteFunc(x.order, func(e *indexEntry) bool { return e.pod == nil })
		x.holes = 0
	}
}

// link files the entry under its class and node.
func (x *PodIndex) link(e *indexEntry) {
	switch e.class {
	case classUnbound:
		x.unbound[e] = struct{}{}
		x.unboundStale = true
	case classBound:
		x.boundStale = true
		x.bound++
		e.node = e.pod.Spec.NodeName
		n := x.nodes[e.node]
		if n == nil {
			n = &nodeEntries{}
			x.nodes[e.node] = n
		}
		n.entries = insertInOrder(n.entries, e)
		n.pods, n.version = nil, x.gen
	}
}

// unlink takes the entry out of its class and node.
func (x *PodIndex) unlink(e *indexEntry) {
	switch e.class {
	case classUnbound:
		delete(x.unbound, e)
		x.unboundStale = true
	case classBound:
		x.boundStale = true
		x.bound--
		n := x.nodes[e.node]
		n.entries = slices.DeleteFunc(n.entries, func(o *indexEntry) bool { return o == e })
		n.pods, n.version = nil, x.gen
		if len(n.entries) == 0 {
			delete(x.nodes, e.node)
		}
		e.node = ""
	}
}

// insertInOrder inserts e into entries, which are in index order, at its
// place in that order.
func insertInOrder(entries []*indexEntry, e *indexEntry) []*indexEntry {
	// Almost always e is the newest entry: it goes last.
	if len(entries) == 0 || entries[len(entries)-1].seq < e.seq {
		return append(entries, e)
	}
	i, _ := slices.BinarySearchFunc(entries, e.seq, func(o *indexEntry, seq uint64) int { return cmp.Compare(o.seq, seq) })
	return slices.Insert(entries, i, e)
}

// Pod returns the stored pod of the namespace and name.
func (x *PodIndex) Pod(namespace, name string) (*corev1.Pod, bool) {
	e, ok := x.entries[types.NamespacedName{Namespace: namespace, Name: name}]
	if !ok {
		return nil, false
	}
	return e.pod, true
}

// Unbound returns the pods that wait for a node (not bound, not
// terminating, not finished), oldest first (ties by namespace and name).
// The list must not be modified.
func (x *PodIndex) Unbound() []*corev1.Pod {
	if x.unboundStale {
		out := make([]*corev1.Pod, 0, len(x.unbound))
		for e := range x.unbound {
			out = append(out, e.pod)
		}
		sortPending(out)
		x.unboundList, x.unboundStale = out, false
	}
	return x.unboundList
}

// Pending returns the pods of Unbound that isPending selects, in the same
// order: oldest first, ties by namespace and name.
func (x *PodIndex) Pending(isPending func(*corev1.Pod) bool) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range x.Unbound() {
		if isPending(p) {
			out = append(out, p)
		}
	}
	return out
}

// Bound returns the pods that occupy a node, in index order. The list must
// not be modified.
func (x *PodIndex) Bound() []*corev1.Pod {
	if x.boundStale {
		out := make([]*corev1.Pod, 0, len(x.boundList))
		for _, e := range x.order {
			if e.class == classBound && e.pod != nil {
				out = append(out, e.pod)
			}
		}
		x.boundList, x.boundStale = out, false
	}
	return x.boundList
}

// BoundCount returns the number of pods that occupy a node.
func (x *PodIndex) BoundCount() int { return x.bound }

// PodsOn returns the pods that occupy the node, in index order. The list
// must not be modified.
func (x *PodIndex) PodsOn(node string) []*corev1.Pod {
	n := x.nodes[node]
	if n == nil {
		return nil
	}
	if n.pods == nil {
		n.pods = make([]*corev1.Pod, len(n.entries))
		for i, e := range n.entries {
			n.pods[i] = e.pod
		}
	}
	return n.pods
}

// NodeVersion returns the version of the node's pods: it changes whenever
// a pod that occupies the node is set or deleted, and is 0 when none does.
func (x *PodIndex) NodeVersion(node string) uint64 {
	if n := x.nodes[node]; n != nil {
		return n.version
	}
	return 0
}
