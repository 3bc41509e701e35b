package offline

import (
	"fmt"
	"time"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/inmemory"
	"github.com/kscale/kscale/internal/scenario"
	"github.com/kscale/kscale/internal/simulator"
)

// DefaultBootTime is a group's boot time when the scenario sets none.
const DefaultBootTime = 2 * time.Minute

// groupConfig turns a scenario node group into the cloud's config.
func groupConfig(g scenario.NodeGroup) (inmemory.GroupConfig, error) {
	cfg := inmemory.GroupConfig{ID: g.Name, MaxSize: g.Max, BootTime: DefaultBootTime, Capacity: inmemory.Unlimited}
	tmpl, err := templateOf(g.Name, g.InstanceTypes, g.Resources, g.Zone, g.Labels, g.Taints.Value)
	if err != nil {
		return cfg, err
	}
	cfg.Template = tmpl
	cfg.Template.PricePerHour = g.PricePerHour
	if cfg.Options, err = scenario.GroupOptions(g); err != nil {
		return cfg, err
	}
	if g.BootTime != nil {
		cfg.BootTime = g.BootTime.Duration
	}
	if g.Capacity != nil {
		cfg.Capacity = g.Capacity.Limit
	}
	if e := g.StockoutError; e != nil {
		info := cloudError(*e)
		if e.Class == "" {
			info.Class = cloudprovider.ErrorOutOfResources
		}
		cfg.StockoutError = &info
	}
	return cfg, nil
}

func cloudError(e scenario.CloudError) cloudprovider.ErrorInfo {
	info := cloudprovider.ErrorInfo{Class: cloudprovider.ErrorClass(e.Class), Code: e.Code, Message: e.Message}
	if info.Class == "" {
		info.Class = cloudprovider.ErrorOther
	}
	if info.Code == "" {
		info.Code = "Failed"
	}
	return info
}

// addGroup adds a group with its initial target; min size applies after the
// initial nodes are in.
func (w *World) addGroup(g scenario.NodeGroup) error {
	cfg, err := groupConfig(g)
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
	return nil
}
