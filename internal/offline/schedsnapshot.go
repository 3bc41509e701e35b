package offline

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/simulator"
)

// schedSnapshot is the scheduler's snapshot of every node and the pods
// that occupy them, kept between ticks and brought up to date with the
// cluster's changes only: the nodes whose object changed, and the nodes
// whose pods changed (by the pod index's node versions). It holds what a
// snapshot built from scratch holds, in the same order: the nodes in
// registration order, each node's pods in creation order.
type schedSnapshot struct {
	snap     *simulator.Snapshot
	nodes    map[string]*corev1.Node
	versions map[string]uint64
	nodeGen  int
	// storageGen is the generation of the cluster's storage objects the
	// snapshot holds.
	storageGen int
}

// sync brings the snapshot up to date with c. ok is false when c has
// bound pods on nodes it does not hold, which only a snapshot built from
// scratch reports (as an error); the snapshot then starts over next time.
func (s *schedSnapshot) sync(c *cluster) (snap *simulator.Snapshot, ok bool, err error) {
	if s.snap == nil {
		s.snap, s.nodes, s.versions, s.nodeGen, s.storageGen = simulator.NewSnapshot(), map[string]*corev1.Node{}, map[string]uint64{}, -1, -1
	}
	if s.storageGen != c.storage.gen {
		// Storage objects are added or replaced, never deleted.
		c.storage.addTo(s.snap)
		s.storageGen = c.storage.gen
	}
	if err := s.syncNodes(c); err != nil {
		s.snap = nil
		return nil, false, err
	}
	var add []*corev1.Pod
	for _, name := range c.nodeOrder {
		v := c.index.NodeVersion(name)
		if held, ok := s.versions[name]; ok && held == v {
			continue
		}
		info, _ := s.snap.NodeInfo(name)
		have, want := info.Pods(), c.index.PodsOn(name)
		// Keep the longest common start; the rest goes and comes back in
		// creation order, so the node's pods stay in that order.
		i := 0
		for i < len(have) && i < len(want) && have[i] == want[i] {
			i++
		}
		for j := len(have) - 1; j >= i; j-- {
			if err := s.snap.RemovePod(have[j].Namespace, have[j].Name); err != nil {
				s.snap = nil
				return nil, false, err
			}
		}
		add = append(add, want[i:]...)
		s.versions[name] = v
	}
	// Removals first: a name that moved to another node is free again.
	for _, p := range add {
		if err := s.snap.AddPod(p); err != nil {
			s.snap = nil
			return nil, false, err
		}
	}
	if s.snap.PodCount() != c.index.BoundCount() {
		s.snap = nil
		return nil, false, nil
	}
	return s.snap, true, nil
}

// syncNodes removes the nodes that are gone or changed, with their pods,
// and adds the new ones; the nodes then follow the registration order.
func (s *schedSnapshot) syncNodes(c *cluster) error {
	if s.nodeGen == c.nodeGen {
		return nil
	}
	s.nodeGen = c.nodeGen
	for name, n := range s.nodes {
		if c.nodes[name] == n {
			continue
		}
		if err := s.snap.RemoveNode(name); err != nil {
			return err
		}
		delete(s.nodes, name)
		delete(s.versions, name)
	}
	added := false
	for _, name := range c.nodeOrder {
		if _, ok := s.nodes[name]; ok {
			continue
		}
		n := c.nodes[name]
		if err := s.snap.AddNode(n); err != nil {
			return fmt.Errorf("adding node %q: %w", name, err)
		}
		s.nodes[name], added = n, true
	}
	if added {
		s.snap.OrderNodes(c.nodeOrder)
	}
	return nil
}
