package nodeautoscaler

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/nodetemplate"
	"github.com/kscale/kscale/internal/nodeautoscaler/backoff"
	"github.com/kscale/kscale/internal/nodeautoscaler/clusterstate"
	"github.com/kscale/kscale/internal/nodeautoscaler/scaleup"
	"github.com/kscale/kscale/internal/nodeautoscaler/spreademulation"
	"github.com/kscale/kscale/internal/nodeautoscaler/template"
	"github.com/kscale/kscale/internal/simulator"
)

// scaleUp evaluates and carries out one scale-up.
func (a *Autoscaler) scaleUp(ctx context.Context, obs *observation, now time.Time) error {
	// observe sorted the pods out: obs.pending and obs.bound are what
	// classifying the cluster's pods here would give, in the same order.
	if len(obs.pending) == 0 {
		a.metrics.loop.observeScaleUp(scaleup.Plan{})
		return nil
	}
	emu := spreademulation.Emulate(spreademulation.Options{Label: a.cfg.Options.EmulatedTopologySpreadLabel}, obs.nodes, obs.pending, obs.bound, now)
	pending := emu.Pending
	snap, err := a.readySnapshot(obs, emu.Scheduled, now)
	if err != nil {
		return err
	}
	groups, limits := a.scaleUpGroups(ctx, obs, now)
	o := a.cfg.Options
	budgetEnd := a.cfg.Clock.Now().Add(min(o.MaxBinpackingDuration, o.MaxBinpackingTime))
	plan, err := scaleup.Compute(ctx, scaleup.Input{
		Snapshot: snap, Pending: pending, Groups: groups, Expander: a.expander, Now: now,
		Filter:            scaleup.PodFilter{NewPodScaleUpDelay: o.NewPodScaleUpDelay, ExpendablePriorityCutoff: o.ExpendablePodsPriorityCutoff},
		MaxPodsConsidered: o.MaxUnschedulablePodsConsidered, Limits: limits, Balance: o.BalanceSimilarNodeGroups,
		Similarity: scaleup.Similarity{Labels: o.Balancing.Labels, IgnoredLabels: o.Balancing.IgnoredLabels,
			MaxAllocatableDifferenceRatio: o.Balancing.MaxAllocatableDifferenceRatio, MaxFreeDifferenceRatio: o.Balancing.MaxFreeDifferenceRatio,
			MemoryDifferenceRatio: o.Balancing.MemoryDifferenceRatio},
		Deadline: func() bool { return !a.cfg.Clock.Now().Before(budgetEnd) },
	})
	if err != nil {
		return fmt.Errorf("computing scale-up: %w", err)
	}
	a.metrics.rememberTemplates(groups)
	a.metrics.observePlan(plan)
	a.metrics.loop.observeScaleUp(plan)
	a.explain(ctx, plan)
	return a.execute(ctx, plan, groups, now)
}

// readySnapshot holds the ready nodes of obs and the pods of bound on
// them. When bound is obs.bound and the cluster's index still holds what
// the loop observed, the snapshot is synced from the index.
func (a *Autoscaler) readySnapshot(obs *observation, bound []*corev1.Pod, now time.Time) (*simulator.Snapshot, error) {
	rules := readinessRules(&a.cfg.Options)
	ready := make([]*corev1.Node, 0, len(obs.nodes))
	for _, n := range obs.nodes {
		if rules.Bucket(n, now) == clusterstate.Ready {
			ready = append(ready, n)
		}
	}
	if x := obs.indexed(); x != nil && sameSlice(bound, obs.bound) {
		return a.snapshots.syncIndexed(ready, x)
	}
	names := make(map[string]bool, len(ready))
	for _, n := range ready {
		names[n.Name] = true
	}
	pods := make([]*corev1.Pod, 0, len(bound))
	for _, p := range bound {
		if names[p.Spec.NodeName] {
			pods = append(pods, p)
		}
	}
	return a.snapshots.sync(ready, pods)
}

// sameSlice reports whether a and b are the same slice: the same length
// and backing array.
func sameSlice(a, b []*corev1.Pod) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// scaleUpGroups describes every group for scale-up, and the cluster totals.
func (a *Autoscaler) scaleUpGroups(ctx context.Context, obs *observation, now time.Time) ([]scaleup.Group, scaleup.Limits) {
	limits := a.clusterLimits(obs)
	var out []scaleup.Group
	var provider []cloudprovider.NodeGroup
	for _, st := range a.state.Groups() {
		g := scaleup.Group{ID: st.Group.ID, Target: st.Group.TargetSize, Max: st.Group.MaxSize, Upcoming: st.Upcoming,
			PricePerHour: st.Group.Template.PricePerHour, ZeroOrMax: st.Group.Options.ZeroOrMaxNodeScaling}
		if ok, why := a.state.IsSafeToScaleUp(g.ID, now); !ok {
			g.SkipReason = why
		}
		g.Template, g.TemplateErr = a.template(st.Group, obs, now)
		out, provider = append(out, g), append(provider, st.Group)
	}
	a.guardTemplates(ctx, obs, out, provider, now)
	for _, g := range out {
		if g.Template != nil {
			limits.Add(g.Upcoming, g.Template.Node)
		}
	}
	return out, limits
}

// clusterLimits returns the cluster-wide limits with the registered
// nodes counted (not yet the upcoming ones).
func (a *Autoscaler) clusterLimits(obs *observation) scaleup.Limits {
	o := a.cfg.Options
	limits := scaleup.Limits{MaxNodesTotal: o.MaxNodesTotal, MaxCores: o.CoresTotal.Max, MaxMemoryBytes: o.MemoryTotal.Max << 30,
		MaxNodesPerScaleUp: o.MaxNodesPerScaleUp, Nodes: len(obs.nodes)}
	for _, n := range obs.nodes {
		limits.Cores += n.Status.Capacity.Cpu().AsApproximateFloat64()
		limits.MemoryBytes += n.Status.Capacity.Memory().Value()
	}
	return limits
}

// template builds a group's template: from the provider, or from a ready
// live node of the group when one exists in the upstream mode or when the
// provider cannot describe the group's nodes.
func (a *Autoscaler) template(g cloudprovider.NodeGroup, obs *observation, now time.Time) (*template.Template, error) {
	var node *corev1.Node
	if !a.cfg.Options.ScaleUpTemplateFromCloudProvider || g.Template.UnavailableReason != "" {
		node = a.liveTemplate(g.ID, obs, now)
	}
	// Upstream's providers add their fake kube-proxy pod only to templates
	// they build, never to a copy of a live node.
	po := template.PodOptions{RequestsFromLimits: a.cfg.Options.DaemonSetRequestsFromLimits}
	if node == nil {
		var err error
		if node, err = nodetemplate.FromProvider(g, a.allocatable(), a.ignore); err != nil {
			return nil, err
		}
		po.KubeProxy = a.cfg.Options.TemplateKubeProxyPod
	}
	return &template.Template{Node: node, DaemonSetPods: template.Pods(node, g.ID, obs.daemonSets, po)}, nil
}

// allocatable returns the estimator provider templates learn allocatable
// from: none (the provider's capacity) without --learn-allocatable-from-nodes.
func (a *Autoscaler) allocatable() *nodetemplate.Estimator {
	if !a.cfg.Options.LearnAllocatable {
		return nil
	}
	return a.estimator
}

func (a *Autoscaler) liveTemplate(group string, obs *observation, now time.Time) *corev1.Node {
	rules := readinessRules(&a.cfg.Options)
	for _, n := range obs.nodes {
		if g, ok := a.state.NodeGroupOf(n); ok && g == group && !n.Spec.Unschedulable && rules.Bucket(n, now) == clusterstate.Ready &&
			!clusterstate.HasTaint(n, clusterstate.ToBeDeletedTaint) {
			return nodetemplate.FromLiveNode(group, n, a.ignore)
		}
	}
	return nil
}

// execute carries out the plan's increases. Every group that grew gets an
// EventScaleUp naming the pods that caused it and all of the loop's size
// changes, so each pod's TriggeredScaleUp lists them as upstream's does.
func (a *Autoscaler) execute(ctx context.Context, plan scaleup.Plan, groups []scaleup.Group, now time.Time) error {
	var done []scaleup.Increase
	var infos []ScaleUpInfo
	for _, inc := range plan.Increases {
		// Logged immediately before the call, as upstream's "Scale-up:
		// setting group" line: the live benchmark times increases by it.
		klog.FromContext(ctx).Info("Scale-up: increasing node group size", "nodeGroup", inc.Group, "delta", inc.Delta)
		if err := a.cfg.Provider.IncreaseSize(ctx, inc.Group, inc.Delta); err != nil {
			reason := backoff.Reason{Code: "APIError", Message: err.Error()}
			a.record(ctx, Event{Type: EventScaleUpError, Group: inc.Group, Delta: inc.Delta, Reason: reason.Code, Message: err.Error()})
			a.record(ctx, stateEvent(a.state.RegisterFailedScaleUp(inc.Group, reason, now)))
			a.metrics.failedScaleUp(inc.Group, reason.Code, inc.Delta)
			continue
		}
		a.state.RegisterScaleUp(inc.Group, inc.Delta, now)
		a.scaledUp(inc.Group, now)
		a.guard.ScaledUp(inc.Group, plan.Triggered, now)
		done = append(done, inc)
		infos = append(infos, scaleUpInfo(groups, inc))
	}
	msg := ""
	if plan.LimitedBy != "" {
		msg = "limited by --" + plan.LimitedBy
	}
	refs := PodRefsOf(plan.Triggered)
	for _, inc := range done {
		a.record(ctx, Event{Type: EventScaleUp, Group: inc.Group, Delta: inc.Delta, Pods: inc.Pods, Message: msg, PodRefs: refs, ScaleUps: infos})
	}
	return nil
}

// scaleUpInfo describes an increase with the group's sizes.
func scaleUpInfo(groups []scaleup.Group, inc scaleup.Increase) ScaleUpInfo {
	info := ScaleUpInfo{Group: inc.Group}
	for _, g := range groups {
		if g.ID == inc.Group {
			info.From, info.Max = g.Target, g.Max
		}
	}
	info.To = info.From + inc.Delta
	return info
}

// explain records one NotTriggerScaleUp event per owner of pods no group
// could help: the reasons per group (those of the owner's first such pod)
// and every such pod of the owner.
func (a *Autoscaler) explain(ctx context.Context, plan scaleup.Plan) {
	byOwner := map[string][]scaleup.NoScaleUp{}
	var owners []string
	for _, n := range plan.NoScaleUp {
		k := ownerKey(n.Pod)
		if _, ok := byOwner[k]; !ok {
			owners = append(owners, k)
		}
		byOwner[k] = append(byOwner[k], n)
	}
	slices.Sort(owners)
	for _, k := range owners {
		first := byOwner[k][0]
		parts := make([]string, 0, len(first.Reasons))
		for _, r := range first.Reasons {
			parts = append(parts, r.Group+": "+r.Reason)
		}
		refs := make([]PodRef, len(byOwner[k]))
		for i, n := range byOwner[k] {
			refs[i] = PodRefOf(n.Pod)
		}
		a.record(ctx, Event{Type: EventNotTriggerScaleUp, Pods: len(refs), Reason: k, Message: strings.Join(parts, "; "),
			PodRefs: refs, GroupReasons: first.Reasons})
	}
}

func ownerKey(p *corev1.Pod) string {
	for _, r := range p.OwnerReferences {
		if r.Controller != nil && *r.Controller {
			return p.Namespace + "/" + r.Name
		}
	}
	return p.Namespace + "/" + p.Name
}
