package scaledown

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/scheduling"
	"github.com/kscale/kscale/internal/simulator"
)

// removal simulates taking candidates out of the cluster one by one.
type removal struct {
	cfg   *Config
	snap  *simulator.Snapshot
	now   time.Time
	free  scheduling.Resources // summed free resources of the nodes left
	allow map[string]int       // how many more nodes each group may lose
}

// newRemoval builds the snapshot in snapOrder. A node whose pods cannot be
// added is blocked with ReasonSimulationError.
func newRemoval(cfg *Config, in *Input, snapOrder []*nodeState) (*removal, error) {
	r := &removal{cfg: cfg, snap: simulator.NewSnapshot(), now: in.Now, allow: map[string]int{}}
	for _, g := range in.Groups {
		r.allow[g.ID] = g.TargetSize - g.Deleting - g.MinSize
	}
	for _, ns := range in.Namespaces {
		r.snap.AddNamespace(ns)
	}
	for _, pv := range in.PersistentVolumes {
		r.snap.AddPersistentVolume(pv)
	}
	for _, pvc := range in.PersistentVolumeClaims {
		r.snap.AddPersistentVolumeClaim(pvc)
	}
	for _, s := range snapOrder {
		if err := r.snap.AddNode(s.Node.Node); err != nil {
			return nil, fmt.Errorf("building the scale-down snapshot: %w", err)
		}
		r.addFree(s, 1)
		for _, p := range s.pods {
			if err := r.snap.AddPod(p); err != nil && s.blocked == nil {
				s.block(ReasonSimulationError, p, err.Error())
			}
		}
	}
	return r, nil
}

// addFree adds (sign 1) or removes (sign -1) the node's free resources.
// An overcommitted node counts as having none, so the sum stays an upper
// bound of the room on the other nodes.
func (r *removal) addFree(s *nodeState, sign int64) {
	r.free.MilliCPU += sign * max(0, s.alloc.MilliCPU-s.requested.MilliCPU)
	r.free.Memory += sign * max(0, s.alloc.Memory-s.requested.Memory)
	r.free.Pods += sign * max(0, s.alloc.Pods-s.requested.Pods)
}

// try reports whether the node can go, keeping the simulated moves when it
// can and blocking the node when it cannot.
func (r *removal) try(s *nodeState) bool {
	if s.blocked != nil {
		return false
	}
	if r.allow[s.Group] <= 0 {
		s.block(ReasonMinSize, nil, "")
		return false
	}
	info, _ := r.snap.NodeInfo(s.Node.Node.Name)
	cur := info.Requested()
	nodeFree := scheduling.Resources{
		MilliCPU: max(0, s.alloc.MilliCPU-cur.MilliCPU),
		Memory:   max(0, s.alloc.Memory-cur.Memory),
		Pods:     max(0, s.alloc.Pods-cur.Pods),
	}
	need := cur
	for _, p := range info.Pods() {
		if isIgnored(p) {
			req := podRequests(p)
			need.Add(&req, -1)
		}
	}
	if need.MilliCPU > r.free.MilliCPU-nodeFree.MilliCPU || need.Memory > r.free.Memory-nodeFree.Memory ||
		need.Pods > r.free.Pods-nodeFree.Pods {
		s.block(ReasonNoPlaceToMove, nil, "the other nodes lack the free resources for its pods")
		return false
	}
	zone := s.Node.Node.Labels[zoneLabel]
	var pods []*corev1.Pod
	for _, p := range info.Pods() {
		if !isIgnored(p) {
			pods = append(pods, movedCopy(p, r.cfg.SpreadLabel, zone))
		}
	}
	if !r.remove(s, pods) {
		return false
	}
	r.free.MilliCPU -= nodeFree.MilliCPU + need.MilliCPU
	r.free.Memory -= nodeFree.Memory + need.Memory
	r.free.Pods -= nodeFree.Pods + need.Pods
	r.allow[s.Group]--
	return true
}

// remove forks, removes the node and reschedules pods on the rest; it
// commits when every pod fits and blocks the node otherwise.
func (r *removal) remove(s *nodeState, pods []*corev1.Pod) bool {
	r.snap.Fork()
	if err := r.snap.RemoveNode(s.Node.Node.Name); err != nil {
		r.snap.Revert()
		s.block(ReasonSimulationError, nil, err.Error())
		return false
	}
	if len(pods) > 0 {
		res := simulator.FilterSchedulable(r.snap, pods, simulator.FilterOptions{Now: r.now})
		if len(res.Remaining) > 0 {
			r.snap.Revert()
			s.block(ReasonNoPlaceToMove, res.Remaining[0], "fits on no other node")
			return false
		}
	}
	r.snap.Commit()
	return true
}

// movedCopy returns the pod as it is rescheduled: unbound (a shallow copy
// with spec.nodeName cleared, sharing everything else with the original) and
// pinned to its zone when it has the emulated spread constraint.
func movedCopy(pod *corev1.Pod, spreadLabel, zone string) *corev1.Pod {
	if pod.Spec.NodeName == "" {
		return pod
	}
	cp := *pod
	cp.Spec.NodeName = ""
	return pinToZone(&cp, spreadLabel, zone)
}
