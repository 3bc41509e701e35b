package scaledown

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/nodeautoscaler/clusterstate"
	"github.com/kscale/kscale/internal/scheduling"
	"github.com/kscale/kscale/internal/simulator"
)

// nodeState is one node while planning.
type nodeState struct {
	Node
	pods      []*corev1.Pod
	movable   []*corev1.Pod
	placed    map[*corev1.Pod]bool // pending pods placed by the loop, not evicted
	cached    bool                 // Input.Snapshot holds the node and its bound pods as they are
	requested scheduling.Resources
	alloc     scheduling.Resources
	util      float64
	blocked   *Blocked // nil, or &blockedAt
	blockedAt Blocked
	cfg       *Config // the settings of the node's group
	rank      int     // the place of the node's name among all (from 1), or 0
}

func (n *nodeState) block(r Reason, pod *corev1.Pod, detail string) {
	n.blockedAt = Blocked{Node: n.Node.Node.Name, Group: n.Group, Reason: r, Detail: detail}
	if pod != nil {
		n.blockedAt.Pod = pod.Namespace + "/" + pod.Name
	}
	n.blocked = &n.blockedAt
}

// gatherNodes pairs nodes with their pods (bound and placed) and computes
// utilization. Pods on nodes not in the input are dropped.
func gatherNodes(in *Input, cfg Config) []*nodeState {
	var buf stateBuf
	return gatherInto(in, cfg, buf.take(len(in.Nodes)))
}

// gatherInto is gatherNodes filling states, zeroed, one per node (see
// stateBuf). A node's pods from Input.PodsOn are used without copying
// (clipped, so appending copies them).
func gatherInto(in *Input, cfg Config, states []*nodeState) []*nodeState {
	var byName map[string]*nodeState
	if len(in.Pods) > 0 || len(in.Placed) > 0 {
		byName = make(map[string]*nodeState, len(in.Nodes))
	}
	for i, s := range states {
		s.Node = in.Nodes[i]
		if byName != nil {
			byName[s.Node.Node.Name] = s
		}
		switch {
		case in.PodsOn != nil:
			s.pods = slices.Clip(in.PodsOn(s.Node.Node.Name))
		case in.Snapshot != nil && len(in.Pods) > 0:
			// Room for the pods the loop's snapshot holds, usually these.
			if info, ok := in.Snapshot.NodeInfo(s.Node.Node.Name); ok {
				s.pods = make([]*corev1.Pod, 0, info.PodCount())
			}
		}
	}
	for _, p := range in.Pods {
		if s, ok := byName[p.Spec.NodeName]; ok {
			s.pods = append(s.pods, p)
		}
	}
	for _, s := range states {
		s.measure(in.Snapshot)
	}
	for _, pl := range in.Placed {
		p := pl.Pod.DeepCopy()
		p.Spec.NodeName = pl.NodeName
		if s, ok := byName[pl.NodeName]; ok {
			s.pods = append(s.pods, p)
			r := podRequests(p)
			s.requested.Add(&r, 1)
			if s.placed == nil {
				s.placed = map[*corev1.Pod]bool{}
			}
			s.placed[p] = true
		}
	}
	for _, s := range states {
		s.cfg = in.groupCfg.of(s.Group, &cfg)
		req := s.utilizationRequests(s.cfg)
		s.util = Utilization(&req, &s.alloc)
	}
	return states
}

// stateBuf holds node states for a round in one block, kept between rounds:
// a round of thousands of nodes then allocates none.
type stateBuf struct {
	block []nodeState
	ptrs  []*nodeState
}

// take returns n zeroed states.
func (b *stateBuf) take(n int) []*nodeState {
	if cap(b.block) < n {
		b.block = make([]nodeState, n)
		b.ptrs = make([]*nodeState, n)
		for i := range b.block {
			b.ptrs[i] = &b.block[i]
		}
	}
	return b.ptrs[:n]
}

// release zeroes the states take handed out, so that they hold no pods or
// nodes until the next round. Nothing may refer to them afterwards.
func (b *stateBuf) release() {
	clear(b.block)
}

// utilizationRequests are the node's requests that count towards its
// utilization: without DaemonSet pods under --ignore-daemonsets-utilization
// and without mirror pods under --ignore-mirror-pods-utilization.
func (n *nodeState) utilizationRequests(cfg *Config) scheduling.Resources {
	req := n.requested
	if !cfg.IgnoreDaemonSetsUtilization && !cfg.IgnoreMirrorPodsUtilization {
		return req
	}
	req.Scalars = slices.Clone(req.Scalars)
	for _, p := range n.pods {
		_, mirror := p.Annotations[MirrorPodAnnotation]
		ds := isDaemonSetPod(p)
		if (ds && cfg.IgnoreDaemonSetsUtilization) || (mirror && cfg.IgnoreMirrorPodsUtilization) {
			r := podRequests(p)
			req.Add(&r, -1)
		}
	}
	return req
}

// measure sets the node's allocatable resources and the summed requests
// of its bound pods. When the snapshot holds this Node object with exactly
// these pods, it marks the node cached and takes both from the snapshot,
// which keeps them.
func (n *nodeState) measure(snap *simulator.Snapshot) {
	if snap != nil {
		if info, ok := snap.NodeInfo(n.Node.Node.Name); ok && info.Node() == n.Node.Node && holdsPods(info, n.pods) {
			n.cached = true
			n.alloc, n.requested = info.Allocatable(), info.Requested()
			return
		}
	}
	n.alloc = scheduling.NodeAllocatable(n.Node.Node)
	for _, p := range n.pods {
		r := podRequests(p)
		n.requested.Add(&r, 1)
	}
}

// smallPodSet is the size up to which holdsPods compares pod lists pairwise.
const smallPodSet = 64

// holdsPods reports whether the snapshot's node holds exactly the pod
// objects of pods, in any order, reading them in place (a snapshot holds a
// pod once).
func holdsPods(info simulator.NodeInfo, pods []*corev1.Pod) bool {
	n := info.PodCount()
	if n != len(pods) {
		return false
	}
	i := 0
	for i < n && info.PodAt(i) == pods[i] {
		i++
	}
	if i == n {
		return true
	}
	if n <= smallPodSet {
		// A node's pods in another order: compare without allocating.
		for ; i < n; i++ {
			if !slices.Contains(pods, info.PodAt(i)) {
				return false
			}
		}
		return true
	}
	in := make(map[*corev1.Pod]bool, len(pods))
	for _, p := range pods {
		in[p] = true
	}
	for ; i < n; i++ {
		if !in[info.PodAt(i)] {
			return false
		}
	}
	return true
}

// classifyNodes blocks nodes that cannot be candidates and fills each
// remaining node's movable pods.
// details, when not nil, keeps the texts of ReasonHighUtilization
// between rounds.
func (c *Config) classifyNodes(states []*nodeState, groups map[string]Group, pdbs *pdbIndex, controllers ControllerLookup, now time.Time, details utilDetails) {
	for _, s := range states {
		c.classifyNode(s, groups, pdbs, controllers, now, details)
	}
}

func (c *Config) classifyNode(s *nodeState, groups map[string]Group, pdbs *pdbIndex, controllers ControllerLookup, now time.Time, details utilDetails) {
	if s.blocked != nil { // recently found unremovable
		return
	}
	node := s.Node.Node
	g, ok := groups[s.Group]
	if !ok || s.Group == "" {
		s.block(ReasonNotAutoscaled, nil, "")
		return
	}
	if g.Blocked != "" {
		s.block(ReasonNodeGroupBlocked, nil, g.Blocked)
		return
	}
	if node.Annotations[ScaleDownDisabledAnnotation] == "true" {
		s.block(ReasonScaleDownDisabled, nil, "")
		return
	}
	if clusterstate.HasTaint(node, clusterstate.ToBeDeletedTaint) || clusterstate.HasTaint(node, clusterstate.BeingDeletedTaint) {
		s.block(ReasonBeingDeleted, nil, "")
		return
	}
	if th := s.groupConfig(c).threshold(&s.alloc); s.util > th {
		s.block(ReasonHighUtilization, nil, details.of(s.util, th))
		return
	}
	var blocking *corev1.Pod
	var why Reason
	var detail string
	for _, p := range s.pods {
		covered, pdb := pdbs.check(p)
		kind, reason := c.classify(p, covered, controllers, now)
		if kind == podIgnored {
			continue
		}
		if reason == "" && pdb != nil {
			reason = ReasonPDB
		}
		if reason == "" {
			s.movable = append(s.movable, p)
			continue
		}
		// Of several blocking pods the least reason (then the first pod
		// by namespace and name) is reported, so the reason depends
		// neither on the order the pods were listed in (an informer's,
		// a snapshot's) nor on their names.
		if blocking == nil || reason < why || (reason == why && podBefore(p, blocking)) {
			blocking, why, detail = p, reason, ""
			if reason == ReasonPDB {
				detail = "PodDisruptionBudget " + pdb.Namespace + "/" + pdb.Name + " allows no disruption"
			}
		}
	}
	if blocking != nil {
		s.movable = nil
		s.block(why, blocking, detail)
	}
}

// podBefore orders pods by namespace, then name.
func podBefore(a, b *corev1.Pod) bool {
	if a.Namespace != b.Namespace {
		return a.Namespace < b.Namespace
	}
	return a.Name < b.Name
}

// utilDetails holds the details of ReasonHighUtilization by the bits of
// the utilization and the threshold: most nodes are kept for their
// utilization every round, at a few distinct values.
type utilDetails map[[2]uint64]string

// maxUtilDetails bounds utilDetails; it is emptied when full.
const maxUtilDetails = 4096

// of returns the detail of a node kept at utilization util over threshold
// th, remembering it when d is not nil.
func (d utilDetails) of(util, th float64) string {
	k := [2]uint64{math.Float64bits(util), math.Float64bits(th)}
	if t, ok := d[k]; ok {
		return t
	}
	t := "utilization " + strconv.FormatFloat(util, 'f', 2, 64) + " is above " + strconv.FormatFloat(th, 'f', 2, 64)
	if d != nil {
		if len(d) >= maxUtilDetails {
			clear(d)
		}
		d[k] = t
	}
	return t
}

// candidateOrder sorts removal candidates: empty first, then the least
// utilized, then by name.
func candidateOrder(a, b *nodeState) int {
	if ae, be := len(a.movable) == 0, len(b.movable) == 0; ae != be {
		if ae {
			return -1
		}
		return 1
	}
	if c := cmp.Compare(a.util, b.util); c != 0 {
		return c
	}
	return byName(a, b)
}

// byName orders two nodes by name: by their name rank when both have one
// (see rankNames), which orders them as their names do.
func byName(a, b *nodeState) int {
	if a.rank > 0 && b.rank > 0 {
		return cmp.Compare(a.rank, b.rank)
	}
	return cmp.Compare(a.Node.Node.Name, b.Node.Node.Name)
}

// rankNames gives each state its place in order, the states' indexes in
// name order of nodes whose names are all different (see nameOrder), so
// that sorting compares numbers instead of names. With order nil the
// states keep no rank.
func rankNames(states []*nodeState, order []int) {
	for pos, i := range order {
		states[i].rank = pos + 1
	}
}

// splitCandidates returns the unblocked nodes in removal order and the
// order in which nodes go into the snapshot: kept nodes most utilized first,
// then candidates in reverse removal order. The simulator places moved pods
// on the first node that fits, so they land on the fullest kept nodes and
// on the candidates considered last.
func splitCandidates(states []*nodeState) (cands, snapOrder []*nodeState) {
	free := 0
	for _, s := range states {
		if s.blocked == nil {
			free++
		}
	}
	// kept has room for the candidates appended to it below.
	kept := make([]*nodeState, 0, len(states))
	cands = make([]*nodeState, 0, free)
	for _, s := range states {
		if s.blocked == nil {
			cands = append(cands, s)
		} else {
			kept = append(kept, s)
		}
	}
	slices.SortFunc(cands, candidateOrder)
	slices.SortFunc(kept, func(a, b *nodeState) int {
		if c := cmp.Compare(b.util, a.util); c != 0 {
			return c
		}
		return byName(a, b)
	})
	snapOrder = append(kept, cands...)
	slices.Reverse(snapOrder[len(kept):])
	return cands, snapOrder
}

// evictable returns the movable pods that really run on the node.
func (n *nodeState) evictable() []*corev1.Pod {
	if len(n.placed) == 0 {
		return n.movable
	}
	var out []*corev1.Pod
	for _, p := range n.movable {
		if !n.placed[p] {
			out = append(out, p)
		}
	}
	return out
}
