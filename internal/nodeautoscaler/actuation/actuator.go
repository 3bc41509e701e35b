package actuation

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"

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
	cfg     Config
	cluster Cluster
	deleter Deleter
	metrics *Metrics
	drains  []*drain
	started []Started
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

// InFlight counts the deletions in progress; empty nodes are deleted within
// Start, so only drains remain in flight.
func (a *Actuator) InFlight() scaledown.InFlight {
	return scaledown.InFlight{NonEmpty: len(a.drains)}
}

// Deleting counts the nodes being deleted per group.
func (a *Actuator) Deleting() map[string]int {
	out := map[string]int{}
	for _, d := range a.drains {
		out[d.cand.Group]++
	}
	return out
}

// Draining lists the names of the nodes being drained, sorted.
func (a *Actuator) Draining() []string {
	out := make([]string, 0, len(a.drains))
	for _, d := range a.drains {
		out = append(out, d.cand.Node.Name)
	}
	slices.Sort(out)
	return out
}

func (a *Actuator) draining(node string) bool {
	for _, d := range a.drains {
		if d.cand.Node.Name == node {
			return true
		}
	}
	return false
}

// CleanUp removes both deletion taints from every node that is not being
// deleted by this actuator: leftovers of an earlier process.
func (a *Actuator) CleanUp(ctx context.Context, nodes []*corev1.Node) error {
	busy := map[string]bool{}
	for _, n := range a.Draining() {
		busy[n] = true
	}
	for _, n := range nodes {
		if busy[n.Name] || !clusterstate.HasTaint(n, toBeDeleted.Key) && !clusterstate.HasTaint(n, beingDeleted.Key) {
			continue
		}
		if err := a.cluster.RemoveTaints(ctx, n.Name, toBeDeleted.Key, beingDeleted.Key); err != nil {
			return fmt.Errorf("removing leftover deletion taints from node %s: %w", n.Name, err)
		}
	}
	return nil
}

// Start begins the deletions of a plan at now: empty nodes are deleted in
// bulk right away, nodes with pods are tainted and their drain starts.
func (a *Actuator) Start(ctx context.Context, plan scaledown.Plan, now time.Time) []Outcome {
	a.started = nil
	out := a.deleteEmpty(ctx, plan.Empty, now)
	for _, c := range plan.Drain {
		if a.draining(c.Node.Name) {
			continue
		}
		if err := a.cluster.AddTaint(ctx, c.Node.Name, toBeDeleted); err != nil {
			out = append(out, a.fail(ctx, c, KindNonEmpty, now, now, 0, FailureTaint, err))
			continue
		}
		a.started = append(a.started, Started{Node: c.Node.Name, Group: c.Group, Kind: KindNonEmpty, Pods: c.Pods})
		d := newDrain(c, now, a.cfg)
		a.drains = append(a.drains, d)
	}
	return append(out, a.Step(ctx, now)...)
}

// LastStarted returns the deletions the last Start began, in the order
// their nodes were marked ToBeDeleted.
func (a *Actuator) LastStarted() []Started { return a.started }

// Step advances every drain at now and returns the deletions that ended.
func (a *Actuator) Step(ctx context.Context, now time.Time) []Outcome {
	var out []Outcome
	kept := a.drains[:0]
	for _, d := range a.drains {
		if o, done := a.advance(ctx, d, now); done {
			out = append(out, o)
			continue
		}
		kept = append(kept, d)
	}
	a.drains = kept
	return out
}

// advance moves one drain forward; done reports that it ended.
func (a *Actuator) advance(ctx context.Context, d *drain, now time.Time) (Outcome, bool) {
	d.evict(ctx, a.cluster, a.metrics, now)
	if !d.allEvicted() {
		if now.Before(d.evictDeadline) {
			return Outcome{}, false
		}
		err := fmt.Errorf("%d pods not evicted within %v, first %s", d.remaining(), a.cfg.MaxPodEvictionTime, d.firstRemaining())
		return a.fail(ctx, d.cand, KindNonEmpty, d.started, now, d.evicted, FailureEvictionTimeout, err), true
	}
	gone, err := d.podsGone(ctx, a.cluster)
	if err != nil || !gone {
		if now.Before(d.goneDeadline) {
			return Outcome{}, false
		}
		if err == nil {
			err = fmt.Errorf("evicted pods still running after %v", d.goneDeadline.Sub(d.lastEviction))
		}
		return a.fail(ctx, d.cand, KindNonEmpty, d.started, now, d.evicted, FailurePodsRemaining, err), true
	}
	return a.deleteNodes(ctx, []scaledown.Candidate{d.cand}, KindNonEmpty, d.started, now, d.evicted)[0], true
}

// deleteEmpty taints and deletes empty nodes, one provider call per group.
func (a *Actuator) deleteEmpty(ctx context.Context, cands []scaledown.Candidate, now time.Time) []Outcome {
	var out []Outcome
	byGroup := map[string][]scaledown.Candidate{}
	var order []string
	for _, c := range cands {
		if err := a.cluster.AddTaint(ctx, c.Node.Name, toBeDeleted); err != nil {
			out = append(out, a.fail(ctx, c, KindEmpty, now, now, 0, FailureTaint, err))
			continue
		}
		a.started = append(a.started, Started{Node: c.Node.Name, Group: c.Group, Kind: KindEmpty})
		// A pod may have landed after the loop looked; the taint keeps new
		// ones off, so check once more now.
		if err := a.stillEmpty(ctx, c.Node.Name); err != nil {
			out = append(out, a.fail(ctx, c, KindEmpty, now, now, 0, FailureNotEmpty, err))
			continue
		}
		if _, ok := byGroup[c.Group]; !ok {
			order = append(order, c.Group)
		}
		byGroup[c.Group] = append(byGroup[c.Group], c)
	}
	for _, g := range order {
		out = append(out, a.deleteNodes(ctx, byGroup[g], KindEmpty, now, now, 0)...)
	}
	return out
}

// stillEmpty returns an error naming a pod that would have to move.
func (a *Actuator) stillEmpty(ctx context.Context, node string) error {
	pods, err := a.cluster.PodsOnNode(ctx, node)
	if err != nil {
		return err
	}
	for _, p := range pods {
		if !scaledown.IsIgnored(p) {
			return fmt.Errorf("pod %s/%s runs on the node", p.Namespace, p.Name)
		}
	}
	return nil
}

// deleteNodes marks the nodes BeingDeleted and deletes them through the
// provider in one call; they all belong to one group.
func (a *Actuator) deleteNodes(ctx context.Context, cands []scaledown.Candidate, kind Kind, started, now time.Time, evicted int) []Outcome {
	var out []Outcome
	var ids []string
	var marked []scaledown.Candidate
	for _, c := range cands {
		if err := a.cluster.AddTaint(ctx, c.Node.Name, beingDeleted); err != nil {
			out = append(out, a.fail(ctx, c, kind, started, now, evicted, FailureTaint, err))
			continue
		}
		ids = append(ids, c.Instance)
		marked = append(marked, c)
	}
	if len(marked) == 0 {
		return out
	}
	err := a.deleter.DeleteInstances(ctx, marked[0].Group, ids)
	for _, c := range marked {
		if err != nil {
			out = append(out, a.fail(ctx, c, kind, started, now, evicted, FailureCloudDelete, err))
			continue
		}
		o := Outcome{Node: c.Node.Name, Group: c.Group, Kind: kind, Started: started, Ended: now, Evicted: evicted}
		a.metrics.observe(o, c)
		out = append(out, o)
	}
	return out
}

// fail removes both taints and reports the failure.
func (a *Actuator) fail(ctx context.Context, c scaledown.Candidate, kind Kind, started, now time.Time, evicted int, why FailureReason, err error) Outcome {
	if uerr := a.cluster.RemoveTaints(ctx, c.Node.Name, toBeDeleted.Key, beingDeleted.Key); uerr != nil {
		err = fmt.Errorf("%w (and removing the deletion taints: %w)", err, uerr)
	}
	o := Outcome{Node: c.Node.Name, Group: c.Group, Kind: kind, Started: started, Ended: now, Failure: why, Err: err, Evicted: evicted}
	a.metrics.observe(o, c)
	return o
}
