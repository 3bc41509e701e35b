package scaledown

import (
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/clock"

	"github.com/kscale/kscale/internal/scheduling"
	"github.com/kscale/kscale/internal/simulator"
)

// removal simulates taking candidates out of the cluster one by one.
type removal struct {
	cfg      *Config
	snap     *simulator.Snapshot
	borrowed bool // snap is the input's, forked: close reverts it
	now      time.Time
	free     scheduling.Resources // summed free resources of the nodes left
	allow    map[string]int       // how many more nodes each group may lose
	// clock and deadline bound the simulation (--scale-down-simulation-timeout;
	// no bound without a clock); timedOut is set once a candidate was left
	// out for it.
	clock    clock.PassiveClock
	deadline time.Time
	timedOut bool
}

// newRemoval opens the snapshot (see openSnapshot) with the nodes in
// snapOrder. A node whose pods cannot be added is blocked with
// ReasonSimulationError. Call close when done.
func newRemoval(cfg *Config, in *Input, snapOrder []*nodeState) (*removal, error) {
	snap, borrowed, err := openSnapshot(in, snapOrder)
	if err != nil {
		return nil, err
	}
	r := &removal{cfg: cfg, snap: snap, borrowed: borrowed, now: in.Now, allow: map[string]int{}, clock: cfg.Clock}
	if r.clock != nil {
		r.deadline = r.clock.Now().Add(cfg.SimulationTimeout)
	}
	for _, g := range in.Groups {
		r.allow[g.ID] = g.TargetSize - g.Deleting - g.MinSize
	}
	for _, s := range snapOrder {
		r.addFree(s, 1)
	}
	return r, nil
}

// expired reports, and remembers, whether the simulation's time budget is
// used up.
func (r *removal) expired() bool {
	if !r.timedOut && r.clock != nil && !r.clock.Now().Before(r.deadline) {
		r.timedOut = true
	}
	return r.timedOut
}

// close undoes every change to a borrowed snapshot, leaving it as the
// caller passed it.
func (r *removal) close() {
	if r.borrowed {
		r.snap.Revert()
	}
}

// addFree adds (sign 1) or removes (sign -1) the node's free resources.
// An overcommitted node counts as having none, so the sum stays an upper
// bound of the room on the other nodes.
func (r *removal) addFree(s *nodeState, sign int64) {
	r.free.MilliCPU += sign * max(0, s.alloc.MilliCPU-s.requested.MilliCPU)
	r.free.Memory += sign * max(0, s.alloc.Memory-s.requested.Memory)
	r.free.Pods += sign * max(0, s.alloc.Pods-s.requested.Pods)
}

// move is one candidate's removal as simulated: its free resources, what
// its pods need and the pods to place elsewhere.
type move struct {
	s        *nodeState
	nodeFree scheduling.Resources
	need     scheduling.Resources
	pods     []*corev1.Pod
}

// prepare computes the candidate's move, blocking it when it cannot go even
// alone: it is blocked already, its group is at its minimum, or the other
// nodes lack the free resources for its pods.
func (r *removal) prepare(s *nodeState) (move, bool) {
	if s.blocked != nil {
		return move{}, false
	}
	if r.allow[s.Group] <= 0 {
		s.block(ReasonMinSize, nil, "")
		return move{}, false
	}
	info, _ := r.snap.NodeInfo(s.Node.Node.Name)
	cur := info.Requested()
	m := move{s: s, need: cur, nodeFree: scheduling.Resources{
		MilliCPU: max(0, s.alloc.MilliCPU-cur.MilliCPU),
		Memory:   max(0, s.alloc.Memory-cur.Memory),
		Pods:     max(0, s.alloc.Pods-cur.Pods),
	}}
	zone := s.Node.Node.Labels[zoneLabel]
	all := info.Pods()
	var moved []*corev1.Pod
	if len(all) >= len(s.pods) && len(s.movable) == len(s.pods) {
		// classifyNode found none of the node's own pods ignored, and the
		// pods earlier removals moved here follow them, none ignored either
		// (only the pods a move takes are placed): they all move.
		moved = make([]*corev1.Pod, 0, len(all))
		for _, p := range s.pods {
			moved = append(moved, pinToZone(p, r.cfg.SpreadLabel, zone))
		}
		for _, p := range all[len(s.pods):] {
			moved = append(moved, pinToZone(p, r.cfg.SpreadLabel, zone))
		}
	} else {
		pods := s.simulatedPods(info)
		moved = r.appendMoved(make([]*corev1.Pod, 0, len(pods)), &m.need, pods, zone)
	}
	if !fitsFree(&m.need, &r.free, &m.nodeFree) {
		s.block(ReasonNoPlaceToMove, nil, "the other nodes lack the free resources for its pods")
		return move{}, false
	}
	m.pods = moved
	return m, true
}

// appendMoved appends the pods that move (pinned to zone) to moved and
// takes the requests of the ignored ones, which stay, out of need.
func (r *removal) appendMoved(moved []*corev1.Pod, need *scheduling.Resources, pods []*corev1.Pod, zone string) []*corev1.Pod {
	for _, p := range pods {
		if isIgnored(p) {
			req := podRequests(p)
			need.Add(&req, -1)
			continue
		}
		moved = append(moved, pinToZone(p, r.cfg.SpreadLabel, zone))
	}
	return moved
}

// simulatedPods returns the pods the snapshot holds on the node: its own
// in input order (a borrowed snapshot may hold them in another order), then
// those moved there by earlier removals, which simulations append.
func (s *nodeState) simulatedPods(info simulator.NodeInfo) []*corev1.Pod {
	all := info.Pods()
	if len(all) < len(s.pods) {
		return all
	}
	return append(slices.Clip(s.pods), all[len(s.pods):]...)
}

// fitsFree reports whether need fits into free minus what the removed
// nodes took with them.
func fitsFree(need, free, gone *scheduling.Resources) bool {
	return need.MilliCPU <= free.MilliCPU-gone.MilliCPU && need.Memory <= free.Memory-gone.Memory &&
		need.Pods <= free.Pods-gone.Pods
}

// removeAll forks, removes the nodes and reschedules their pods on the rest
// in one simulation. It commits and books the moves when every pod fits;
// otherwise it reverts and, for a single node, blocks it.
func (r *removal) removeAll(moves []move) bool {
	r.snap.Fork()
	n := 0
	for _, m := range moves {
		n += len(m.pods)
	}
	pods := make([]*corev1.Pod, 0, n)
	for _, m := range moves {
		if err := r.snap.RemoveNode(m.s.Node.Node.Name); err != nil {
			r.snap.Revert()
			m.s.block(ReasonSimulationError, nil, err.Error())
			return false
		}
		pods = append(pods, m.pods...)
	}
	if len(pods) > 0 {
		// The pods keep their spec.nodeName: the simulation ignores it.
		res := simulator.FilterSchedulable(r.snap, pods, simulator.FilterOptions{Now: r.now, IgnoreNodeName: true})
		if len(res.Remaining) > 0 {
			r.snap.Revert()
			if len(moves) == 1 {
				moves[0].s.block(ReasonNoPlaceToMove, res.Remaining[0], "fits on no other node")
			}
			return false
		}
	}
	r.snap.Commit()
	for _, m := range moves {
		r.book(&m)
	}
	return true
}

// book takes a committed move's resources out of the free total.
func (r *removal) book(m *move) {
	r.free.MilliCPU -= m.nodeFree.MilliCPU + m.need.MilliCPU
	r.free.Memory -= m.nodeFree.Memory + m.need.Memory
	r.free.Pods -= m.nodeFree.Pods + m.need.Pods
	r.allow[m.s.Group]--
}
