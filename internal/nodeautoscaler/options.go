package nodeautoscaler

import (
	"context"

	"k8s.io/klog/v2"

	"github.com/kscale/kscale/internal/cloudprovider"
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
