package offline

import (
	"fmt"
	"time"

	"github.com/kscale/kscale/internal/cloudprovider/inmemory"
	"github.com/kscale/kscale/internal/scenario"
	"github.com/kscale/kscale/internal/simulator"
)

// addGroup adds a group with its initial target; min size applies after the
// initial nodes are in.
func (w *World) addGroup(g scenario.NodeGroup) error {
	cfg, err := g.GroupConfig()
	if err != nil {
		return err
	}
	if err := w.cloud.AddGroup(cfg); err != nil {
		return err
	}
	w.reserved[g.Name] = g.Reserved.List()
	w.realNodes[g.Name] = g.RealNodes
	return nil
}

// addInitialNodes starts the scenario's nodes as running instances, then
// raises targets to the configured initial target and applies min sizes.
func (w *World) addInitialNodes() error {
	for _, n := range w.scn.Nodes {
		if n.NotReady && n.Name != "" {
			w.notReady[n.Name] = true
		}
		for range max(n.Count, 1) {
			if err := w.cloud.AddInstance(n.Group, n.Name, true, 0); err != nil {
				return fmt.Errorf("adding initial node: %w", err)
			}
		}
	}
	w.syncMachines(w.clock.Now())
	for _, n := range w.scn.Nodes {
		if n.Name != "" && len(n.Taints.Value) > 0 {
			if err := w.taint(n.Name, n.Taints.Value...); err != nil {
				return err
			}
		}
	}
	for _, g := range w.scn.NodeGroups {
		_, target, err := w.cloud.Group(g.Name)
		if err != nil {
			return err
		}
		if g.InitialTarget() > target {
			if err := w.cloud.SetTargetSize(g.Name, g.InitialTarget()); err != nil {
				return err
			}
		}
		if err := w.cloud.UpdateGroup(g.Name, func(c *inmemory.GroupConfig) { c.MinSize = g.Min }); err != nil {
			return err
		}
	}
	return nil
}

// placeInitialPods creates every workload's pods and binds the ones the
// scenario says are already scheduled; it fails when they do not fit.
func (w *World) placeInitialPods() error {
	created := Start.Add(-2 * time.Second)
	w.reconcileWorkloads(created)
	for _, wl := range w.workloads {
		if len(wl.spec.On) > 0 {
			w.bindOn(wl, w.initialPods(wl)[:wl.spec.Scheduled])
		}
	}
	var snap *simulator.Snapshot
	for _, wl := range w.workloads {
		if wl.spec.Scheduled == 0 || len(wl.spec.On) > 0 {
			continue
		}
		if snap == nil {
			var err error
			if snap, err = w.initialSnapshot(); err != nil {
				return err
			}
		}
		if err := w.bindInitial(snap, wl, w.initialPods(wl)[:wl.spec.Scheduled]); err != nil {
			return err
		}
	}
	for _, wl := range w.workloads {
		for _, p := range w.initialPods(wl)[:wl.spec.NotReady] {
			w.unreadyPods[p.Namespace+"/"+p.Name] = true
		}
	}
	return nil
}
