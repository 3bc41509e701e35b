package nodeautoscaler

import (
	"context"
	"slices"
	"time"

	"k8s.io/klog/v2"

	"github.com/kscale/kscale/internal/nodeautoscaler/backoff"
	"github.com/kscale/kscale/internal/nodeautoscaler/clusterstate"
	"github.com/kscale/kscale/internal/nodeautoscaler/scaleup"
	"github.com/kscale/kscale/internal/nodeautoscaler/template"
)

// scaleUpToMinSize is --enforce-node-group-min-size: after the loop's
// scale-up and scale-down, every group whose target is below its minimum
// is raised to it, as upstream does, unless the group may not grow now
// (backed off, provisioning) or has no template, and within
// --max-nodes-total, --cores-total and --memory-total.
func (a *Autoscaler) scaleUpToMinSize(ctx context.Context, obs *observation, now time.Time) error {
	if !a.cfg.Options.EnforceNodeGroupMinSize {
		return nil
	}
	groups := a.state.Groups()
	if !slices.ContainsFunc(groups, func(st clusterstate.GroupState) bool { return st.Group.TargetSize < st.Group.MinSize }) {
		return nil // the common case: no template is built
	}
	limits := a.clusterLimits(obs)
	// Upstream caps this scale-up by the cluster limits only, not by
	// --max-nodes-per-scaleup.
	limits.MaxNodesPerScaleUp = 0
	templates := make([]*template.Template, len(groups))
	errs := make([]error, len(groups))
	for i, st := range groups {
		if templates[i], errs[i] = a.template(st.Group, obs, now); errs[i] == nil {
			limits.Add(st.Upcoming, templates[i].Node)
		}
	}
	for i, st := range groups {
		g := st.Group
		if g.TargetSize >= g.MinSize {
			continue
		}
		if ok, why := a.state.IsSafeToScaleUp(g.ID, now); !ok {
			klog.FromContext(ctx).V(2).Info("Not raising node group to its minimum size", "nodeGroup", g.ID, "reason", why)
			continue
		}
		tmpl := templates[i]
		if errs[i] != nil {
			klog.FromContext(ctx).Info("Not raising node group to its minimum size", "nodeGroup", g.ID, "err", errs[i].Error())
			continue
		}
		incs, limitedBy := limits.Apply([]scaleup.Increase{{Group: g.ID, Delta: g.MinSize - g.TargetSize}}, tmpl.Node)
		if len(incs) == 0 {
			klog.FromContext(ctx).V(2).Info("Not raising node group to its minimum size", "nodeGroup", g.ID, "limitedBy", limitedBy)
			continue
		}
		delta := incs[0].Delta
		if err := a.cfg.Provider.IncreaseSize(ctx, g.ID, delta); err != nil {
			reason := backoff.Reason{Code: "APIError", Message: err.Error()}
			a.record(ctx, Event{Type: EventScaleUpError, Group: g.ID, Delta: delta, Reason: reason.Code, Message: err.Error()})
			a.record(ctx, stateEvent(a.state.RegisterFailedScaleUp(g.ID, reason, now)))
			a.metrics.failedScaleUp(g.ID, reason.Code, delta)
			continue
		}
		a.state.RegisterScaleUp(g.ID, delta, now)
		a.scaledUp(g.ID, now)
		limits.Add(delta, tmpl.Node)
		info := ScaleUpInfo{Group: g.ID, From: g.TargetSize, To: g.TargetSize + delta, Max: g.MaxSize}
		a.record(ctx, Event{Type: EventScaleUp, Group: g.ID, Delta: delta, Message: "to the node group's minimum size (--enforce-node-group-min-size)",
			ScaleUps: []ScaleUpInfo{info}})
	}
	return nil
}
