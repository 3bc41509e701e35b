package scaledown

import (
	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/scheduling"
)

// groupConfigs are the effective settings of the groups that carry their
// own options, resolved once per planning round; other groups use the
// global Config.
type groupConfigs map[string]*Config

// resolveGroups applies each group's options to a copy of cfg.
func resolveGroups(cfg *Config, groups []Group) groupConfigs {
	var out groupConfigs
	for _, g := range groups {
		if !g.Options.Set() {
			continue
		}
		if out == nil {
			out = groupConfigs{}
		}
		out[g.ID] = cfg.withOptions(g.Options)
	}
	return out
}

// of returns the settings of a group: its own, or global.
func (gc groupConfigs) of(group string, global *Config) *Config {
	if c, ok := gc[group]; ok {
		return c
	}
	return global
}

// withOptions returns a copy of c with the group's options applied.
func (c *Config) withOptions(o cloudprovider.Options) *Config {
	out := *c
	if v := o.ScaleDownUtilizationThreshold; v != nil {
		out.UtilizationThreshold = *v
	}
	if v := o.ScaleDownGPUUtilizationThreshold; v != nil {
		out.GPUUtilizationThreshold = *v
	}
	if v := o.ScaleDownUnneededTime; v != nil {
		out.UnneededTime = *v
	}
	if v := o.ScaleDownUnreadyTime; v != nil {
		out.UnreadyTime = *v
	}
	if v := o.IgnoreDaemonSetsUtilization; v != nil {
		out.IgnoreDaemonSetsUtilization = *v
	}
	out.zeroOrMax = o.ZeroOrMaxNodeScaling
	return &out
}

// threshold is the utilization under which a node is a candidate: the
// GPU threshold for a GPU node, else the utilization threshold.
func (c *Config) threshold(alloc *scheduling.Resources) float64 {
	if isGPUNode(alloc) {
		return c.GPUUtilizationThreshold
	}
	return c.UtilizationThreshold
}

// isGPUNode reports whether the node has GPUs, so that Utilization
// measures its GPU share.
func isGPUNode(alloc *scheduling.Resources) bool {
	for _, g := range gpuResources {
		if alloc.Scalar(g) > 0 {
			return true
		}
	}
	return false
}

// groupConfig returns the settings of the node's group, or c when the
// node was not gathered with them.
func (n *nodeState) groupConfig(c *Config) *Config {
	if n.cfg != nil {
		return n.cfg
	}
	return c
}
