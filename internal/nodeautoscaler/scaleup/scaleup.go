package scaleup

import (
	"context"
	"fmt"
	"strings"
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
	// PricePerHour is what one new node costs per hour (the provider's
	// template price); 0 when unknown.
	PricePerHour float64
	// Blocked, when set, returns why the group must not grow for a pod
	// ("" when it may): its real nodes showed that the pod does not fit
	// them although the template says it does. Such a group is estimated
	// alone, never balanced with others.
	Blocked func(*corev1.Pod) string
	// TemplateNote, when set, is added to every "does not fit the
	// template" reason: how the group's real nodes corrected the template.
	TemplateNote string
	// ZeroOrMax makes the group all-or-nothing (upstream's
	// ZeroOrMaxNodeScaling): it grows only to its max size at once, is
	// never balanced with other groups, and is left out when the whole
	// increase would exceed the cluster's limits (see zeroormax.go).
	ZeroOrMax bool
}

// Chooser picks one option; *expander.Chain implements it.
type Chooser interface {
	// Best returns the chosen option, or false for none.
	Best(ctx context.Context, opts []expander.Option) (expander.Option, bool)
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
	// Similarity decides which groups balancing treats as similar.
	Similarity Similarity
	// Expander chooses among the options.
	Expander Chooser
	// Deadline reports when the estimation budget is spent (may be nil).
	Deadline func() bool
	// Now is the loop time.
	Now time.Time
}

// Compute evaluates one scale-up.
func Compute(ctx context.Context, in Input) (Plan, error) {
	pods, skipped := in.Filter.Apply(in.Pending, in.Now)
	plan := Plan{Skipped: skipped}
	in.Snapshot.Fork()
	defer in.Snapshot.Revert()
	if err := AddUpcoming(in.Snapshot, in.Groups); err != nil {
		return plan, err
	}
	remaining := simulator.FilterSchedulable(in.Snapshot, pods, simulator.FilterOptions{Now: in.Now}).Remaining
	plan.Unschedulable = len(remaining)
	remaining = Oldest(remaining, in.MaxPodsConsidered)
	plan.Considered = len(remaining)
	if len(remaining) == 0 {
		return plan, nil
	}
	opts, verdicts, splits := estimateGroups(in, remaining, &plan)
	plan.NoScaleUp = explain(in.Groups, remaining, opts, verdicts)
	best, ok := in.Expander.Best(ctx, opts)
	if !ok {
		return plan, nil
	}
	plan.Increases, plan.Triggered = distribute(in, best, splits), best.Pods
	plan.Increases, plan.LimitedBy = limitsFor(in, best.Group).Apply(plan.Increases, best.Template)
	return plan, nil
}

// verdict is what the estimate said about a group.
type verdict struct {
	reason string
	pods   map[*corev1.Pod]string
}

// estimateGroups builds one option per group that can help, and for
// each option the increases per group its estimate placed.
// It records the limit skips and every estimate's statistics in plan.
func estimateGroups(in Input, pods []*corev1.Pod, plan *Plan) ([]expander.Option, map[string]verdict, map[string][]Increase) {
	verdicts := map[string]verdict{}
	ready, rooms := growable(in, verdicts, plan)
	var opts []expander.Option
	splits := map[string][]Increase{}
	// Similar groups with the same set share one estimate.
	done := map[string]*setEstimate{}
	for _, g := range ready {
		set := balancedSet(in, g, ready)
		key := setKey(set)
		e, ok := done[key]
		if !ok {
			e = estimateSet(in, set, rooms, pods)
			done[key] = e
			plan.Binpacking = append(plan.Binpacking, binpackingStat(set[0].Template.Node, pods, e.res))
		}
		verdicts[g.ID] = e.verdict
		if e.res.NodeCount == 0 {
			continue
		}
		opt := expander.Option{Group: g.ID, NodeCount: e.res.NodeCount, Template: g.Template.Node, Pods: e.pods,
			PricePerHour: g.PricePerHour, ClusterNodes: in.Limits.Nodes}
		splits[g.ID] = e.split
		if g.ZeroOrMax {
			opt.NodeCount, splits[g.ID] = zeroOrMaxIncrease(g, len(e.pods))
		}
		opts = append(opts, opt)
	}
	return opts, verdicts, splits
}

// setEstimate is the estimate of a set of similar groups.
type setEstimate struct {
	res     simulator.EstimateResult
	verdict verdict
	pods    []*corev1.Pod
	split   []Increase
}

// balancedSet returns the groups g's estimate may add nodes to, in
// provider order: g alone, or with balancing g and the growable groups
// similar to it.
func balancedSet(in Input, g Group, ready []Group) []Group {
	if !in.Balance || g.Blocked != nil || g.ZeroOrMax {
		return []Group{g}
	}
	var set []Group
	for _, o := range ready {
		if o.ID == g.ID || (o.Blocked == nil && !o.ZeroOrMax && similar(g.Template, o.Template, in.Similarity)) {
			set = append(set, o)
		}
	}
	return set
}

func setKey(set []Group) string {
	ids := make([]string, len(set))
	for i, g := range set {
		ids[i] = g.ID
	}
	return strings.Join(ids, "\x00")
}

// estimateSet estimates the nodes the pods need on the set's groups. With
// several groups (balancing), new nodes go to the group with the fewest
// nodes whose template the pods fit, ties in provider order, within each
// group's room: the estimate decides the split over the groups (and their
// zones) itself, so topology spread and anti-affinity see the nodes where
// they will be, and every group of the set gets the same answer.
func estimateSet(in Input, set []Group, rooms map[string]int, pods []*corev1.Pod) *setEstimate {
	first := set[0]
	pods, blocked := unblocked(first, pods)
	est := simulator.EstimateInput{Template: first.Template.Node, DaemonSetPods: first.Template.DaemonSetPods, Pods: pods,
		MaxNodes: rooms[first.ID], Deadline: in.Deadline, Now: in.Now}
	groupOf := map[*corev1.Node]string{}
	total := 0
	for i, g := range set {
		groupOf[g.Template.Node] = g.ID
		total += rooms[g.ID]
		if len(set) == 1 {
			break
		}
		if i > 0 {
			est.SimilarTemplates = append(est.SimilarTemplates, g.Template.Node)
		}
		est.Sizes = append(est.Sizes, g.Target)
		est.Rooms = append(est.Rooms, rooms[g.ID])
	}
	if len(set) > 1 {
		est.MaxNodes = min(total, in.Limits.MaxNodesPerScaleUp, in.Limits.NodesBudget())
	}
	e := &setEstimate{res: simulator.Estimate(in.Snapshot, est), verdict: verdict{pods: blocked}}
	for _, u := range e.res.Unschedulable {
		e.verdict.pods[u.Pod] = "does not fit the template: " + u.Err.Filter + ": " + u.Err.Reason
		if first.TemplateNote != "" {
			e.verdict.pods[u.Pod] += " (" + first.TemplateNote + ")"
		}
	}
	if len(e.res.Unplaced) > 0 {
		why := cutShort(in, set)
		for _, p := range e.res.Unplaced {
			e.verdict.pods[p] = why
		}
	}
	added := map[string]int{}
	e.pods = append(e.pods, e.res.OnExisting...)
	for _, n := range e.res.Nodes {
		e.pods = append(e.pods, n.Pods...)
		added[groupOf[n.Template]]++
	}
	for _, g := range set {
		if added[g.ID] > 0 {
			e.split = append(e.split, Increase{Group: g.ID, Delta: added[g.ID], Pods: len(e.pods)})
		}
	}
	return e
}

// growable returns the groups that may grow and their room, and records
// why the others may not; those one more node of which would exceed the
// cluster's cores or memory go to plan.LimitSkips as well.
func growable(in Input, verdicts map[string]verdict, plan *Plan) ([]Group, map[string]int) {
	budget := in.Limits.NodesBudget()
	rooms := map[string]int{}
	var ready []Group
	for _, g := range in.Groups {
		room := min(g.Max-g.Target, in.Limits.MaxNodesPerScaleUp, budget)
		switch {
		case g.SkipReason != "":
			verdicts[g.ID] = verdict{reason: g.SkipReason}
		case g.Template == nil:
			verdicts[g.ID] = verdict{reason: fmt.Sprintf("no template: %v", g.TemplateErr)}
		case g.Max-g.Target <= 0:
			verdicts[g.ID] = verdict{reason: "max size reached"}
		case room <= 0:
			verdicts[g.ID] = verdict{reason: "max nodes total reached"}
		case g.ZeroOrMax && zeroOrMaxOverNodes(in.Limits, g):
			verdicts[g.ID] = verdict{reason: zeroOrMaxNodesReason}
		case len(in.Limits.ExceededBy(g.Template.Node, newNodes(g))) > 0:
			exceeded := in.Limits.ExceededBy(g.Template.Node, newNodes(g))
			plan.LimitSkips = append(plan.LimitSkips, LimitSkip{Group: g.ID, Resources: exceeded})
			verdicts[g.ID] = verdict{reason: "max cluster " + strings.Join(exceeded, ", ") + " limit reached"}
		default:
			rooms[g.ID] = room
			ready = append(ready, g)
		}
	}
	return ready, rooms
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

// unblocked splits pods into those g may grow for and, with their
// reasons, those it is blocked for.
func unblocked(g Group, pods []*corev1.Pod) ([]*corev1.Pod, map[*corev1.Pod]string) {
	reasons := map[*corev1.Pod]string{}
	if g.Blocked == nil {
		return pods, reasons
	}
	kept := make([]*corev1.Pod, 0, len(pods))
	for _, p := range pods {
		if r := g.Blocked(p); r != "" {
			reasons[p] = "template mismatch: " + r
			continue
		}
		kept = append(kept, p)
	}
	return kept, reasons
}

// cutShort says which limit stopped an estimate before it placed every
// pod, in the words growable uses when the limit is reached before the
// estimate: the time budget, the cluster's node budget, the groups' max
// sizes, or the per-scale-up limit, whichever is smallest.
func cutShort(in Input, set []Group) string {
	if in.Deadline != nil && in.Deadline() {
		return "estimate cut short: time budget (max-node-group-binpacking-duration) spent"
	}
	room := 0
	for _, g := range set {
		room += max(0, g.Max-g.Target)
	}
	budget, perScaleUp := in.Limits.NodesBudget(), in.Limits.MaxNodesPerScaleUp
	if perScaleUp <= 0 {
		perScaleUp = room
	}
	switch min(room, perScaleUp, budget) {
	case budget:
		return "max nodes total reached"
	case room:
		return "max size reached"
	default:
		return "max nodes per scale-up reached"
	}
}

// binpackingStat describes an estimate of pods on tmpl.
func binpackingStat(tmpl *corev1.Node, pods []*corev1.Pod, res simulator.EstimateResult) BinpackingStat {
	namespaces := map[string]bool{}
	for _, p := range pods {
		namespaces[p.Namespace] = true
	}
	return BinpackingStat{InstanceType: tmpl.Labels[corev1.LabelInstanceTypeStable], CPU: tmpl.Status.Capacity.Cpu().String(),
		Namespaces: len(namespaces), EquivalenceGroups: res.EquivalenceGroups}
}
