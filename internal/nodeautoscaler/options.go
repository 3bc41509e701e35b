package nodeautoscaler

import (
	"context"

	"k8s.io/klog/v2"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/nodeautoscaler/clusterstate"
	"github.com/kscale/kscale/internal/nodeautoscaler/options"
)

// reportInvalidOptions records, every loop, each group whose autoscaling
// option values could not be used (the provider dropped them: the group
// runs on the global settings). The recorder deduplicates repeats.
func (a *Autoscaler) reportInvalidOptions(ctx context.Context, groups []cloudprovider.NodeGroup) {
	for i := range groups {
		g := &groups[i]
		if g.OptionsInvalid == "" {
			continue
		}
		klog.FromContext(ctx).Info("Node group options ignored", "nodeGroup", g.ID, "reason", g.OptionsInvalid)
		a.record(ctx, Event{Type: EventNodeGroupOptionsInvalid, Group: g.ID, Reason: "InvalidOptions", Message: g.OptionsInvalid})
	}
}

// readinessRules are the rules that tell ready nodes from starting ones.
func readinessRules(o *options.Options) clusterstate.ReadinessRules {
	return clusterstate.ReadinessRules{StartupTaints: o.AllStartupTaints(), MaxNodeStartupTime: o.MaxNodeStartupTime, GPULabel: o.GPULabel}
}
