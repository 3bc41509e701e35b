package scaleup

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/nodeautoscaler/expander"
	"github.com/kscale/kscale/internal/nodeautoscaler/template"
	"github.com/kscale/kscale/internal/simulator"
)

// Group is one node group as scale-up sees it.
type Group struct {
	// ID is the node group id.
	ID string
	// Target and Max are the current target and maximum size.
	Target, Max int
	// Upcoming is how many nodes the group will still deliver.
	Upcoming int
	// SkipReason, when set, excludes the group (e.g. backed off).
	SkipReason string
	// Template is the group's template; nil when it could not be built.
	Template *template.Template
	// TemplateErr says why the template is missing.
	TemplateErr error
}

// Chooser picks one option; *expander.Chain implements it.
type Chooser interface {
	// Best returns the chosen option, or false for none.
	Best(opts []expander.Option) (expander.Option, bool)
}

// Input is everything one scale-up evaluation needs.
type Input struct {
	// Snapshot holds the ready nodes and their pods; it is forked and
	// reverted, so it comes back unchanged.
	Snapshot *simulator.Snapshot
	// Pending are the unschedulable pods.
	Pending []*corev1.Pod
	// Groups are all node groups, in provider order.
	Groups []Group
	// Filter selects the pods to consider.
	Filter PodFilter
	// MaxPodsConsidered is --max-unschedulable-pods-considered.
	MaxPodsConsidered int
	// Limits are the cluster-wide limits.
	Limits Limits
	// Balance is --balance-similar-node-groups.
	Balance bool
	// Expander chooses among the options.
	Expander Chooser
	// Deadline reports when the estimation budget is spent (may be nil).
	Deadline func() bool
	// Now is the loop time.
	Now time.Time
}

// Compute evaluates one scale-up.
func Compute(in Input) (Plan, error) {
	pods, skipped := in.Filter.Apply(in.Pending, in.Now)
	plan := Plan{Skipped: skipped}
	in.Snapshot.Fork()
	defer in.Snapshot.Revert()
	for _, g := range in.Groups {
		if g.Template == nil || g.Upcoming == 0 {
			continue
		}
		if err := AddUpcoming(in.Snapshot, g.ID, g.Template.Node, g.Template.DaemonSetPods, g.Upcoming); err != nil {
			return plan, fmt.Errorf("adding upcoming nodes of node group %q: %w", g.ID, err)
		}
	}
	remaining := simulator.FilterSchedulable(in.Snapshot, pods, simulator.FilterOptions{Now: in.Now}).Remaining
	plan.Unschedulable = len(remaining)
	remaining = Oldest(remaining, in.MaxPodsConsidered)
	plan.Considered = len(remaining)
	if len(remaining) == 0 {
		return plan, nil
	}
	opts, verdicts := estimateGroups(in, remaining)
	plan.NoScaleUp = explain(in.Groups, remaining, opts, verdicts)
	best, ok := in.Expander.Best(opts)
	if !ok {
		return plan, nil
	}
	plan.Increases, plan.Triggered = distribute(in, best, opts), best.Pods
	plan.Increases, plan.LimitedBy = in.Limits.Apply(plan.Increases, best.Template)
	return plan, nil
}

// verdict is what the estimate said about a group.
type verdict struct {
	reason string
	pods   map[*corev1.Pod]string
}

// estimateGroups builds one option per group that can help.
func estimateGroups(in Input, pods []*corev1.Pod) ([]expander.Option, map[string]verdict) {
	var opts []expander.Option
	verdicts := map[string]verdict{}
	budget := in.Limits.NodesBudget()
	for _, g := range in.Groups {
		room := min(g.Max-g.Target, in.Limits.MaxNodesPerScaleUp, budget)
		switch {
		case g.SkipReason != "":
			verdicts[g.ID] = verdict{reason: g.SkipReason}
			continue
		case g.Template == nil:
			verdicts[g.ID] = verdict{reason: fmt.Sprintf("no template: %v", g.TemplateErr)}
			continue
		case g.Max-g.Target <= 0:
			verdicts[g.ID] = verdict{reason: "max size reached"}
			continue
		case room <= 0:
			verdicts[g.ID] = verdict{reason: "max nodes total reached"}
			continue
		}
		res := simulator.Estimate(in.Snapshot, simulator.EstimateInput{Template: g.Template.Node,
			DaemonSetPods: g.Template.DaemonSetPods, Pods: pods, MaxNodes: room, Deadline: in.Deadline, Now: in.Now})
		v := verdict{pods: map[*corev1.Pod]string{}}
		for _, u := range res.Unschedulable {
			v.pods[u.Pod] = "does not fit the template: " + u.Err.Filter + ": " + u.Err.Reason
		}
		for _, p := range res.Unplaced {
			v.pods[p] = "estimate cut short (max size or time budget)"
		}
		verdicts[g.ID] = v
		if res.NodeCount == 0 {
			continue
		}
		opt := expander.Option{Group: g.ID, NodeCount: res.NodeCount, Template: g.Template.Node}
		for _, n := range res.Nodes {
			opt.Pods = append(opt.Pods, n.Pods...)
		}
		opts = append(opts, opt)
	}
	return opts, verdicts
}

// explain lists the pods that no option helps, with a reason per group.
func explain(groups []Group, pods []*corev1.Pod, opts []expander.Option, verdicts map[string]verdict) []NoScaleUp {
	helped := map[*corev1.Pod]bool{}
	for _, o := range opts {
		for _, p := range o.Pods {
			helped[p] = true
		}
	}
	var out []NoScaleUp
	for _, p := range pods {
		if helped[p] {
			continue
		}
		n := NoScaleUp{Pod: p}
		for _, g := range groups {
			v := verdicts[g.ID]
			r := v.reason
			if r == "" {
				r = v.pods[p]
			}
			if r == "" {
				r = "another pending pod took the estimated room"
			}
			n.Reasons = append(n.Reasons, GroupReason{Group: g.ID, Reason: r})
		}
		out = append(out, n)
	}
	return out
}
