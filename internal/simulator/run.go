package simulator

import (
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/scheduling"
)

// run is one simulation over a snapshot. It shares topology counters
// between groups and keeps them current as it places pods.
type run struct {
	s *Snapshot
	// arena and refArena hand out pod entries and entry slices in chunks,
	// so bulk placements do not allocate per pod or per node.
	arena    []podEntry
	refArena []*podEntry
	now      time.Time
	counters []counter
	byKey    map[string]counter
	// byLabel holds the counters that only count pods carrying a label;
	// generic holds the others. A placement updates only those that can
	// count the pod.
	byLabel map[labelKV][]counter
	generic []counter
}

func newRun(s *Snapshot, now time.Time) *run {
	return &run{s: s, now: now, byKey: map[string]counter{}, byLabel: map[labelKV][]counter{}}
}

// groupState is what a group's filters precompute, as kube-scheduler's
// PreFilter does: counters, the domains that existing pods' anti-affinity
// forbids, and the bound volumes.
type groupState struct {
	spec         *podSpec
	spread       []*spreadCounter
	aff          *termCounter
	anti         *termCounter
	existingAnti map[labelKV]int
	// antiKeys are the distinct topology keys of existingAnti, so a node
	// check looks up its own domains instead of scanning them all.
	antiKeys []string
	vol      *volumeState
	// selfAffinity is true when the pod matches all its own affinity
	// terms, so it may start a group where no pod matches them yet.
	selfAffinity bool
	snap         *Snapshot
	preFilter    *FitError
}

func (r *run) counter(key string, build func() counter) counter {
	if c, ok := r.byKey[key]; ok {
		return c
	}
	c := build()
	r.byKey[key] = c
	r.counters = append(r.counters, c)
	kvs, ok := c.indexLabels()
	if !ok {
		r.generic = append(r.generic, c)
		return c
	}
	for _, kv := range kvs {
		r.byLabel[kv] = append(r.byLabel[kv], c)
	}
	return c
}

// prepare computes the group state for a pod spec, running the PreFilter
// checks in kube-scheduler's order; a PreFilter rejection applies to every
// node.
func (r *run) prepare(spec *podSpec) *groupState {
	g := &groupState{spec: spec, snap: r.s}
	switch {
	case spec.notSimulated != "":
		g.preFilter = &FitError{Filter: FilterNotSimulated, Reason: spec.notSimulated}
		return g
	case spec.parseErr != nil:
		g.preFilter = &FitError{Filter: FilterPodSpec, Reason: spec.parseErr.Error()}
		return g
	}
	if reason := r.s.inTreeVolume(spec.pod); reason != "" {
		g.preFilter = &FitError{Filter: FilterNotSimulated, Reason: reason}
		return g
	}
	if _, conflict := spec.nodeMatcher.NamedNodes(); conflict {
		g.preFilter = &FitError{Filter: FilterNodeAffinity, Reason: scheduling.ReasonNodeAffinityConflict}
		return g
	}
	if g.preFilter = r.prepareVolumes(g); g.preFilter != nil {
		return g
	}
	for i := range spec.spread {
		c := &spec.spread[i]
		sc := r.counter(spreadKey(spec, c), func() counter { return newSpreadCounter(r.s, spec, c) })
		g.spread = append(g.spread, sc.(*spreadCounter))
	}
	if len(spec.affinity) > 0 {
		g.selfAffinity = true
		for i := range spec.affinity {
			if !spec.affinity[i].Matches(spec.pod, r.s.namespaceLabels) {
				g.selfAffinity = false
			}
		}
		c := r.counter(termsKey("aff", spec.affinity), func() counter { return newTermCounter(r.s, spec.affinity, true) })
		g.aff = c.(*termCounter)
	}
	if len(spec.anti) > 0 {
		c := r.counter(termsKey("anti", spec.anti), func() counter { return newTermCounter(r.s, spec.anti, false) })
		g.anti = c.(*termCounter)
	}
	g.existingAnti = r.existingAnti(spec)
	for kv := range g.existingAnti {
		if !slices.Contains(g.antiKeys, kv.key) {
			g.antiKeys = append(g.antiKeys, kv.key)
		}
	}
	return g
}

// existingAnti collects the domains where bound pods' required
// anti-affinity terms select the incoming pod.
func (r *run) existingAnti(spec *podSpec) map[labelKV]int {
	var out map[labelKV]int
	r.s.eachAntiTermFor(spec.labels, func(ref termRef, indexed bool) {
		t := &ref.e.spec.anti[ref.term]
		if !t.SelectsIncoming(spec.pod, r.s.namespaceLabels, indexed) {
			return
		}
		v, ok := ref.e.node.node.Labels[t.TopologyKey]
		if !ok {
			return
		}
		if out == nil {
			out = map[labelKV]int{}
		}
		out[labelKV{t.TopologyKey, v}]++
	})
	return out
}

// place binds a pod of the group to the node and updates the counters.
func (r *run) place(g *groupState, pod *corev1.Pod, n *nodeInfo) {
	e := &podEntry{pod: pod, spec: g.spec}
	r.s.place(e, n)
	r.count(e, n)
}

// count updates the counters that can count the placed pod, each once.
func (r *run) count(e *podEntry, n *nodeInfo) {
	if len(r.counters) == 0 {
		return
	}
	for _, c := range r.generic {
		c.placed(e, n)
	}
	if len(r.byLabel) == 0 {
		return
	}
	var buf [8]counter
	seen := buf[:0]
	for k, v := range e.pod.Labels {
		for _, c := range r.byLabel[labelKV{k, v}] {
			if len(seen) > 0 && slices.Contains(seen, c) {
				continue
			}
			seen = append(seen, c)
			c.placed(e, n)
		}
	}
}

// addNode adds a node with the given (already parsed) allocatable and
// updates the counters.
func (r *run) addNode(node *corev1.Node, alloc scheduling.Resources) *nodeInfo {
	n := r.s.addNodeAlloc(node, alloc.Clone())
	for _, c := range r.counters {
		c.nodeAdded(n)
	}
	return n
}

// placeMany binds several pods of the group to one node, as one change.
func (r *run) placeMany(g *groupState, pods []*corev1.Pod, n *nodeInfo) {
	if len(pods) == 1 {
		r.place(g, pods[0], n)
		return
	}
	entries := r.entries(len(pods))
	if len(n.pods) == 0 {
		n.pods = r.refs(len(pods))
	}
	n.pods = slices.Grow(n.pods, len(pods))
	for i, p := range pods {
		entries[i] = podEntry{pod: p, spec: g.spec}
		r.s.link(&entries[i], n)
		r.count(&entries[i], n)
	}
	r.s.record(change{op: opAddPods, node: n, pos: len(pods)})
}

const arenaChunk = 4096

// entries returns k zeroed pod entries from the run's arena.
func (r *run) entries(k int) []podEntry {
	if cap(r.arena)-len(r.arena) < k {
		r.arena = make([]podEntry, 0, max(k, arenaChunk))
	}
	out := r.arena[len(r.arena) : len(r.arena)+k : len(r.arena)+k]
	r.arena = r.arena[:len(r.arena)+k]
	return out
}

// refs returns an empty entry slice with capacity k from the run's arena;
// appending beyond k reallocates, never overwriting a neighbour.
func (r *run) refs(k int) []*podEntry {
	if cap(r.refArena)-len(r.refArena) < k {
		r.refArena = make([]*podEntry, 0, max(k, arenaChunk))
	}
	out := r.refArena[len(r.refArena) : len(r.refArena) : len(r.refArena)+k]
	r.refArena = r.refArena[:len(r.refArena)+k]
	return out
}
