package actuation

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/kscale/kscale/internal/nodeautoscaler/clusterstate"
	"github.com/kscale/kscale/internal/nodeautoscaler/scaledown"
)

// Taints the actuator puts on nodes it removes.
var (
	toBeDeleted  = corev1.Taint{Key: clusterstate.ToBeDeletedTaint, Effect: corev1.TaintEffectNoSchedule}
	beingDeleted = corev1.Taint{Key: clusterstate.BeingDeletedTaint, Effect: corev1.TaintEffectNoSchedule}
)

// Actuator deletes nodes. Keep one for the life of the loop; it is not safe
// for concurrent use.
type Actuator struct {
	cfg       Config
	cluster   Cluster
	deleter   Deleter
	metrics   *Metrics
	deletions []*deletion
	started   []Started
}

// New returns an actuator. metrics may be nil.
func New(cfg Config, cluster Cluster, deleter Deleter, metrics *Metrics) (*Actuator, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("configuring scale-down actuation: %w", err)
	}
	if metrics == nil {
		var err error
		if metrics, err = NewMetrics(nil); err != nil {
			return nil, err
		}
	}
	return &Actuator{cfg: cfg, cluster: cluster, deleter: deleter, metrics: metrics}, nil
}

// InFlight counts the deletions in progress: empty nodes waiting out
// --node-delete-delay-after-taint or their delay-deletion annotations, and
// nodes being drained.
func (a *Actuator) InFlight() scaledown.InFlight {
	var f scaledown.InFlight
	for _, d := range a.deletions {
		if d.kind == KindEmpty {
			f.Empty++
		} else {
			f.NonEmpty++
		}
	}
	return f
}

// Deleting counts the nodes being deleted per group.
func (a *Actuator) Deleting() map[string]int {
	out := map[string]int{}
	for _, d := range a.deletions {
		out[d.cand.Group]++
	}
	return out
}

// Draining lists the names of the nodes being drained, sorted.
func (a *Actuator) Draining() []string {
	return a.names(func(d *deletion) bool { return d.kind == KindNonEmpty })
}

// inFlightNodes lists the names of every node being deleted, sorted.
func (a *Actuator) inFlightNodes() []string {
	return a.names(func(*deletion) bool { return true })
}

func (a *Actuator) names(keep func(*deletion) bool) []string {
	out := make([]string, 0, len(a.deletions))
	for _, d := range a.deletions {
		if keep(d) {
			out = append(out, d.cand.Node.Name)
		}
	}
	slices.Sort(out)
	return out
}

func (a *Actuator) deleting(node string) bool {
	return slices.ContainsFunc(a.deletions, func(d *deletion) bool { return d.cand.Node.Name == node })
}

// CleanUp removes both deletion taints and the soft
// DeletionCandidateTaint from every node that is not being deleted by this
// actuator: leftovers of an earlier process. With
// --cordon-node-before-terminating nodes that had a deletion taint are also
// set schedulable again, as upstream does.
func (a *Actuator) CleanUp(ctx context.Context, nodes []*corev1.Node) error {
	for _, n := range nodes {
		if a.deleting(n.Name) {
			continue
		}
		if clusterstate.HasTaint(n, DeletionCandidateTaint) {
			if err := a.cluster.RemoveTaints(ctx, n.Name, DeletionCandidateTaint); err != nil {
				return fmt.Errorf("removing the leftover soft taint from node %s: %w", n.Name, err)
			}
		}
		if !clusterstate.HasTaint(n, toBeDeleted.Key) && !clusterstate.HasTaint(n, beingDeleted.Key) {
			continue
		}
		if err := a.unmark(ctx, n.Name); err != nil {
			return fmt.Errorf("removing leftover deletion taints from node %s: %w", n.Name, err)
		}
	}
	return nil
}

// Start begins the deletions of a plan at now: every node is marked
// ToBeDeleted (and cordoned with --cordon-node-before-terminating); after
// --node-delete-delay-after-taint empty nodes are deleted in bulk and the
// others drained. With a zero delay that happens within Start. The nodes
// of the plan's zero-or-max groups (Plan.Atomic) go together: in one
// provider call once all are ready, or none of them (see atomic.go).
func (a *Actuator) Start(ctx context.Context, plan scaledown.Plan, now time.Time) []Outcome {
	a.started = nil
	var out []Outcome
	first := len(a.deletions)
	mark := func(c scaledown.Candidate, kind Kind) {
		if a.deleting(c.Node.Name) {
			return
		}
		if err := a.mark(ctx, c.Node.Name, now); err != nil {
			out = append(out, a.fail(ctx, c, kind, now, now, 0, FailureTaint, err))
			return
		}
		st := Started{Node: c.Node.Name, Group: c.Group, Kind: kind}
		if kind == KindNonEmpty {
			st.Pods = c.Pods
		}
		// As upstream's "Scale-down: removing (empty) node" lines, at the
		// default verbosity.
		klog.FromContext(ctx).Info("Scale-down: removing node", "node", c.Node.Name, "nodeGroup", c.Group, "empty", kind == KindEmpty, "podsToMove", len(st.Pods))
		a.started = append(a.started, st)
		a.deletions = append(a.deletions, &deletion{cand: c, kind: kind, started: now, readyAt: now.Add(a.cfg.DeleteDelayAfterTaint)})
	}
	for _, c := range plan.Empty {
		mark(c, KindEmpty)
	}
	for _, c := range plan.Drain {
		mark(c, KindNonEmpty)
	}
	out = append(out, a.batchAtomic(ctx, plan, first, now)...)
	return append(out, a.Step(ctx, now)...)
}

// mark taints the node ToBeDeleted, with the Unix time as its value as
// upstream does, and, with --cordon-node-before-terminating, cordons it.
func (a *Actuator) mark(ctx context.Context, node string, now time.Time) error {
	taint := toBeDeleted
	taint.Value = strconv.FormatInt(now.Unix(), 10)
	if err := a.cluster.AddTaint(ctx, node, taint); err != nil {
		return err
	}
	if a.cfg.CordonNodeBeforeTerminating {
		if err := a.cluster.Cordon(ctx, node, true); err != nil {
			return fmt.Errorf("cordoning node %s: %w", node, err)
		}
	}
	return nil
}

// unmark removes both deletion taints and, with
// --cordon-node-before-terminating, uncordons the node.
func (a *Actuator) unmark(ctx context.Context, node string) error {
	if err := a.cluster.RemoveTaints(ctx, node, toBeDeleted.Key, beingDeleted.Key); err != nil {
		return err
	}
	if a.cfg.CordonNodeBeforeTerminating {
		if err := a.cluster.Cordon(ctx, node, false); err != nil {
			return fmt.Errorf("uncordoning node %s: %w", node, err)
		}
	}
	return nil
}

// LastStarted returns the deletions the last Start began, in the order
// their nodes were marked ToBeDeleted.
func (a *Actuator) LastStarted() []Started { return a.started }

// Step advances every deletion at now and returns the deletions that
// ended. Empty nodes that become ready in the same step are deleted with
// one provider call per group; the nodes of a zero-or-max group wait for
// each other (see atomic.go).
func (a *Actuator) Step(ctx context.Context, now time.Time) []Outcome {
	var out []Outcome
	var ready []*deletion
	kept := make([]*deletion, 0, len(a.deletions))
	for _, d := range a.deletions {
		o, st := a.advance(ctx, d, now)
		switch {
		case st == stepEnded:
			out = append(out, o)
			if d.batch != nil {
				d.batch.failed = true
			}
		case st == stepReady && d.batch == nil:
			ready = append(ready, d)
		case st == stepReady:
			d.phase = phaseQueued
			kept = append(kept, d)
		default:
			kept = append(kept, d)
		}
	}
	kept, atomicOut := a.stepAtomic(ctx, kept, now)
	a.deletions = kept
	out = append(out, atomicOut...)
	return append(out, a.deleteReady(ctx, ready, now)...)
}

// deleteReady deletes the nodes whose preparation is done: drained nodes
// one by one, empty nodes in one provider call per group, groups in the
// order they first appear.
func (a *Actuator) deleteReady(ctx context.Context, ready []*deletion, now time.Time) []Outcome {
	var out []Outcome
	byGroup := map[string][]*deletion{}
	var order []string
	for _, d := range ready {
		if d.kind == KindNonEmpty {
			out = append(out, a.deleteNodes(ctx, []*deletion{d}, now, false)...)
			continue
		}
		if _, ok := byGroup[d.cand.Group]; !ok {
			order = append(order, d.cand.Group)
		}
		byGroup[d.cand.Group] = append(byGroup[d.cand.Group], d)
	}
	for _, g := range order {
		out = append(out, a.deleteNodes(ctx, byGroup[g], now, false)...)
	}
	return out
}

// nonIgnoredPod returns an error naming a pod that would have to move.
func nonIgnoredPod(pods []*corev1.Pod) error {
	for _, p := range pods {
		if !scaledown.IsIgnored(p) {
			return fmt.Errorf("pod %s/%s runs on the node", p.Namespace, p.Name)
		}
	}
	return nil
}

// deleteNodes marks the nodes BeingDeleted and deletes them through the
// provider in one call; they all belong to one group. A node that cannot
// be marked fails alone, or, when atomic, gives up the whole call.
func (a *Actuator) deleteNodes(ctx context.Context, ds []*deletion, now time.Time, atomic bool) []Outcome {
	var out []Outcome
	var ids []string
	var marked []*deletion
	for _, d := range ds {
		if err := a.cluster.AddTaint(ctx, d.cand.Node.Name, beingDeleted); err != nil {
			out = append(out, a.failDeletion(ctx, d, now, FailureTaint, err))
			continue
		}
		ids = append(ids, d.cand.Instance)
		marked = append(marked, d)
	}
	if len(marked) == 0 {
		return out
	}
	if atomic && len(out) > 0 {
		return append(out, a.giveUp(ctx, marked, now)...)
	}
	err := a.deleter.DeleteInstances(ctx, marked[0].cand.Group, ids)
	for _, d := range marked {
		if err != nil {
			out = append(out, a.failDeletion(ctx, d, now, FailureCloudDelete, err))
			continue
		}
		o := Outcome{Node: d.cand.Node.Name, Group: d.cand.Group, Kind: d.kind, Started: d.started, Ended: now, Evicted: d.evicted()}
		a.metrics.observe(o, d.cand)
		out = append(out, o)
	}
	return out
}

// failDeletion is fail for a deletion under way.
func (a *Actuator) failDeletion(ctx context.Context, d *deletion, now time.Time, why FailureReason, err error) Outcome {
	return a.fail(ctx, d.cand, d.kind, d.started, now, d.evicted(), why, err)
}

// fail removes both taints (and the cordon) and reports the failure.
func (a *Actuator) fail(ctx context.Context, c scaledown.Candidate, kind Kind, started, now time.Time, evicted int, why FailureReason, err error) Outcome {
	if uerr := a.unmark(ctx, c.Node.Name); uerr != nil {
		err = fmt.Errorf("%w (and removing the deletion taints: %w)", err, uerr)
	}
	o := Outcome{Node: c.Node.Name, Group: c.Group, Kind: kind, Started: started, Ended: now, Failure: why, Err: err, Evicted: evicted}
	a.metrics.observe(o, c)
	return o
}
