package actuation

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/nodeautoscaler/scaledown"
)

// DelayDeletionAnnotationPrefix starts the node annotations other
// components set to hold a node's deletion back (upstream's
// delay-deletion.cluster-autoscaler.kubernetes.io/): the node is deleted
// once none is left or --node-deletion-delay-timeout passed.
const DelayDeletionAnnotationPrefix = "delay-deletion.cluster-autoscaler.kubernetes.io/"

// deletion is one node on its way out: marked at started, then (from
// readyAt on) drained or checked empty, then held while delay-deletion
// annotations remain, then deleted.
type deletion struct {
	cand    scaledown.Candidate
	kind    Kind
	started time.Time
	readyAt time.Time
	phase   phase
	// stages are the drain's priority ranges; drain is the running one,
	// stages[next-1]; evictedBefore counts the earlier stages' evictions.
	stages        []stage
	next          int
	drain         *drain
	evictedBefore int
	// holdUntil ends the wait for delay-deletion annotations.
	holdUntil time.Time
	// batch, for a node of a zero-or-max group, is the group's deletion
	// it belongs to; nil otherwise.
	batch *batch
}

// phase is where a deletion stands.
type phase int

const (
	// phaseMarked waits out --node-delete-delay-after-taint.
	phaseMarked phase = iota
	// phaseDraining evicts pods and waits for them to go (non-empty nodes).
	phaseDraining
	// phaseHeld waits for delay-deletion annotations to go.
	phaseHeld
	// phaseQueued is ready and waits for the other nodes of its
	// zero-or-max group (see atomic.go).
	phaseQueued
)

// stepState is what one step did to a deletion.
type stepState int

const (
	// stepWaiting: the deletion goes on.
	stepWaiting stepState = iota
	// stepReady: the node can be deleted now.
	stepReady
	// stepEnded: the deletion failed; the outcome says why.
	stepEnded
)

// advance moves one deletion forward as far as it can go at now.
func (a *Actuator) advance(ctx context.Context, d *deletion, now time.Time) (Outcome, stepState) {
	if d.phase == phaseQueued {
		return Outcome{}, stepReady
	}
	if d.phase == phaseMarked {
		if now.Before(d.readyAt) {
			return Outcome{}, stepWaiting
		}
		if o, failed := a.prepare(ctx, d, now); failed {
			return o, stepEnded
		}
	}
	if d.phase == phaseDraining {
		o, st := a.advanceDrain(ctx, d, now)
		if st != stepReady {
			return o, st
		}
		a.hold(d, now)
	}
	return a.held(ctx, d, now)
}

// prepare ends the wait after marking: an empty node is checked once more
// and its DaemonSet pods evicted (best effort, one attempt each, with
// --daemonset-eviction-for-empty-nodes); a drain starts with its pods and
// the node's DaemonSet pods (with --daemonset-eviction-for-occupied-nodes).
// A pod's EnableDSEvictionAnnotation overrides either flag.
func (a *Actuator) prepare(ctx context.Context, d *deletion, now time.Time) (Outcome, bool) {
	pods, err := a.cluster.PodsOnNode(ctx, d.cand.Node.Name)
	if d.kind == KindEmpty {
		// A pod may have landed after the loop looked; the taint keeps new
		// ones off, so check once more now.
		if err == nil {
			err = nonIgnoredPod(pods)
		}
		if err != nil {
			return a.fail(ctx, d.cand, KindEmpty, d.started, now, 0, FailureNotEmpty, err), true
		}
		for _, st := range a.cfg.stages(nil, DaemonSetPodsToEvict(pods, a.cfg.DaemonSetEvictionForEmptyNodes)) {
			newDrain(d.cand, st, now, a.cfg).evictBestEffort(ctx, a.cluster, now)
		}
		a.hold(d, now)
		return Outcome{}, false
	}
	// Evicting DaemonSet pods is best effort: a failed listing leaves
	// them in place.
	d.stages = a.cfg.stages(d.cand.Pods, DaemonSetPodsToEvict(pods, a.cfg.DaemonSetEvictionForOccupiedNodes))
	d.phase = phaseDraining
	return Outcome{}, false
}

// nextStage starts the drain's next priority range at now; false when
// none is left.
func (a *Actuator) nextStage(d *deletion, now time.Time) bool {
	if d.drain != nil {
		d.evictedBefore += d.drain.evicted
	}
	if d.next >= len(d.stages) {
		d.drain = nil
		return false
	}
	d.drain = newDrain(d.cand, d.stages[d.next], now, a.cfg)
	d.next++
	return true
}

// advanceDrain runs the drain's priority ranges in turn, lowest first:
// each range's pods are evicted and waited for before the next range
// starts, as upstream.
func (a *Actuator) advanceDrain(ctx context.Context, d *deletion, now time.Time) (Outcome, stepState) {
	if d.drain == nil && !a.nextStage(d, now) {
		return Outcome{}, stepReady
	}
	for {
		o, st := a.advanceStage(ctx, d, now)
		if st != stepReady || !a.nextStage(d, now) {
			return o, st
		}
	}
}

// advanceStage evicts the running range's pods and waits for them to go.
func (a *Actuator) advanceStage(ctx context.Context, d *deletion, now time.Time) (Outcome, stepState) {
	dr := d.drain
	dr.evict(ctx, a.cluster, a.metrics, now)
	if !dr.allEvicted() {
		if now.Before(dr.evictDeadline) {
			return Outcome{}, stepWaiting
		}
		err := fmt.Errorf("%d pods not evicted within %v, first %s", dr.remaining(), a.cfg.MaxPodEvictionTime, dr.firstRemaining())
		return a.fail(ctx, d.cand, KindNonEmpty, d.started, now, d.evicted(), FailureEvictionTimeout, err), stepEnded
	}
	gone, err := dr.podsGone(ctx, a.cluster)
	if err != nil || !gone {
		if now.Before(dr.goneDeadline) {
			return Outcome{}, stepWaiting
		}
		if err == nil {
			err = fmt.Errorf("evicted pods still running after %v", dr.goneDeadline.Sub(dr.lastEviction))
		}
		return a.fail(ctx, d.cand, KindNonEmpty, d.started, now, d.evicted(), FailurePodsRemaining, err), stepEnded
	}
	return Outcome{}, stepReady
}

// hold starts the wait for delay-deletion annotations.
func (a *Actuator) hold(d *deletion, now time.Time) {
	d.phase = phaseHeld
	d.holdUntil = now.Add(a.cfg.DeletionDelayTimeout)
}

// held reports whether the node may be deleted: no delay-deletion
// annotation is left on a fresh read, or --node-deletion-delay-timeout
// passed since the wait began (the node is deleted anyway, as upstream).
// A node that cannot be read fails the deletion.
func (a *Actuator) held(ctx context.Context, d *deletion, now time.Time) (Outcome, stepState) {
	if a.cfg.DeletionDelayTimeout == 0 {
		return Outcome{}, stepReady
	}
	n, err := a.cluster.GetNode(ctx, d.cand.Node.Name)
	if err != nil {
		err = fmt.Errorf("reading node %s for delay-deletion annotations: %w", d.cand.Node.Name, err)
		return a.fail(ctx, d.cand, d.kind, d.started, now, d.evicted(), FailureNodeRead, err), stepEnded
	}
	if HasDelayDeletionAnnotation(n) && now.Before(d.holdUntil) {
		return Outcome{}, stepWaiting
	}
	return Outcome{}, stepReady
}

// evicted counts the pods evicted by the deletion's drain.
func (d *deletion) evicted() int {
	if d.drain == nil {
		return d.evictedBefore
	}
	return d.evictedBefore + d.drain.evicted
}

// HasDelayDeletionAnnotation reports whether the node carries an
// annotation starting with DelayDeletionAnnotationPrefix.
func HasDelayDeletionAnnotation(n *corev1.Node) bool {
	for k := range n.Annotations {
		if strings.HasPrefix(k, DelayDeletionAnnotationPrefix) {
			return true
		}
	}
	return false
}
