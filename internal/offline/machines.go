package offline

import (
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/cloudprovider/inmemory"
	"github.com/kscale/kscale/internal/cloudprovider/kwok"
)

// syncMachines plays kubelet and cloud controller: a running machine
// without a node registers one, and a node whose machine is gone
// disappears with its pods (a deleting machine keeps its node for the
// group's deleteTime).
func (w *World) syncMachines(now time.Time) {
	gen, next := w.cloud.Changes()
	if w.synced && gen == w.cloudGen && (w.cloudNext.IsZero() || now.Before(w.cloudNext)) {
		return // no machine changed or finished booting since the last sync
	}
	w.cloudGen, w.cloudNext, w.synced = gen, next, true
	live := map[string]bool{}
	registered := map[string][]string{}
	var groups []string
	defer func() {
		for _, g := range groups {
			w.emit(Event{Type: "NodeRegistered", Group: g, Nodes: registered[g]})
		}
	}()
	for _, m := range w.cloud.Machines() {
		live[m.ID] = true
		if m.Deleting {
			continue // its node, if any, stays until the machine is gone
		}
		if _, ok := w.cluster.nodes[m.ID]; ok || !m.Running {
			continue
		}
		n, err := w.newNode(m, now)
		if err != nil {
			w.emit(Event{Type: "Error", Group: m.Group, Message: err.Error()})
			continue
		}
		w.cluster.addNode(n)
		if _, ok := registered[m.Group]; !ok {
			groups = append(groups, m.Group)
		}
		registered[m.Group] = append(registered[m.Group], m.ID)
	}
	var gone []string
	for _, name := range w.cluster.nodeOrder {
		if !live[name] {
			gone = append(gone, name)
		}
	}
	// removeNode edits nodeOrder, so the names are collected first.
	for _, name := range gone {
		w.cluster.removeNode(name)
		w.emit(Event{Type: "NodeRemoved", Nodes: []string{name}})
	}
}

// newNode builds the node a machine registers: the same node the live kwok
// provider registers (kwok.MachineNode), plus the scenario's start taints
// and not-ready state.
func (w *World) newNode(m inmemory.Machine, now time.Time) (*corev1.Node, error) {
	cfg, _, err := w.cloud.Group(m.Group)
	if err != nil {
		return nil, err
	}
	n, err := kwok.MachineNode(m, w.groupInfo(m.Group, cfg), w.reserved[m.Group], now)
	if err != nil {
		return nil, err
	}
	w.realNodes[m.Group].Apply(n)
	n.Spec.Taints = append(n.Spec.Taints, w.startTaints[m.ID]...)
	if w.notReady[m.ID] {
		n.Status.Conditions[0].Status, n.Status.Conditions[0].Reason = corev1.ConditionFalse, "KubeletNotReady"
		n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule})
	}
	return n, nil
}
