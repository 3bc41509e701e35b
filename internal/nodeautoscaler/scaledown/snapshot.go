package scaledown

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/simulator"
)

// openSnapshot returns the snapshot the removal simulates on, holding the
// nodes of snapOrder in that order with their pods, and whether it was
// borrowed from the input (it is then forked and must be reverted).
func openSnapshot(in *Input, snapOrder []*nodeState) (*simulator.Snapshot, bool, error) {
	if in.Snapshot == nil {
		snap := simulator.NewSnapshot()
		addObjects(snap, in)
		for _, s := range snapOrder {
			if err := addNodeState(snap, s, s.pods); err != nil {
				return nil, false, err
			}
		}
		return snap, false, nil
	}
	snap := in.Snapshot
	snap.Fork()
	addObjects(snap, in)
	if err := adapt(snap, snapOrder); err != nil {
		snap.Revert()
		return nil, false, err
	}
	return snap, true, nil
}

func addObjects(snap *simulator.Snapshot, in *Input) {
	for _, ns := range in.Namespaces {
		snap.AddNamespace(ns)
	}
	for _, pv := range in.PersistentVolumes {
		snap.AddPersistentVolume(pv)
	}
	for _, pvc := range in.PersistentVolumeClaims {
		snap.AddPersistentVolumeClaim(pvc)
	}
	for _, sc := range in.StorageClasses {
		snap.AddStorageClass(sc)
	}
	for _, n := range in.CSINodes {
		snap.AddCSINode(n)
	}
}

// addNodeState adds the node and the given pods of it. A pod that cannot
// be added blocks the node with ReasonSimulationError.
func addNodeState(snap *simulator.Snapshot, s *nodeState, pods []*corev1.Pod) error {
	if err := snap.AddNode(s.Node.Node); err != nil {
		return fmt.Errorf("building the scale-down snapshot: %w", err)
	}
	addPods(snap, s, pods)
	return nil
}

func addPods(snap *simulator.Snapshot, s *nodeState, pods []*corev1.Pod) {
	for _, p := range pods {
		if err := snap.AddPod(p); err != nil && s.blocked == nil {
			s.block(ReasonSimulationError, p, err.Error())
		}
	}
}

// adapt turns the borrowed snapshot (inside its fork) into the planning
// snapshot. A node gatherNodes found cached (the same Node object with
// exactly the node's bound pods) is kept as it is, so its pods are not
// parsed again, and only the pending pods the loop placed there are added;
// any other node is removed, and the nodes it lacks (or held differently)
// are added. The nodes are then put in snapOrder.
func adapt(snap *simulator.Snapshot, snapOrder []*nodeState) error {
	cached := make(map[string]bool, len(snapOrder))
	for _, s := range snapOrder {
		if s.cached {
			cached[s.Node.Node.Name] = true
		}
	}
	for _, info := range snap.Nodes() {
		if name := info.Node().Name; !cached[name] {
			if err := snap.RemoveNode(name); err != nil {
				return fmt.Errorf("building the scale-down snapshot: %w", err)
			}
		}
	}
	names := make([]string, len(snapOrder))
	for i, s := range snapOrder {
		names[i] = s.Node.Node.Name
		if s.cached && cached[names[i]] {
			cached[names[i]] = false // a second node of the name is added, and fails
			addPods(snap, s, s.pods[len(s.pods)-len(s.placed):])
		} else if err := addNodeState(snap, s, s.pods); err != nil {
			return err
		}
	}
	snap.OrderNodes(names)
	return nil
}
