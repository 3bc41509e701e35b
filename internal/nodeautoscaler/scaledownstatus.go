package nodeautoscaler

import (
	"context"
	"time"

	"github.com/kscale/kscale/internal/nodeautoscaler/actuation"
	"github.com/kscale/kscale/internal/nodeautoscaler/scaledown"
)

// ScaleDownCandidates returns the number of unneeded nodes per group that
// the last scale-down round found (upstream's scale-down candidates of the
// status ConfigMap); groups without candidates are absent. It is nil when
// scale-down is not wired (Config.ScaleDown nil), and empty while
// --scale-down-enabled is false or before the first round. The map is
// replaced, never modified, by later loops; callers must not modify it.
func (a *Autoscaler) ScaleDownCandidates() map[string]int {
	if a.scaleDowner == nil {
		return nil
	}
	if c := a.scaleDowner.ctrl.Candidates(); c != nil {
		return c
	}
	return map[string]int{}
}

// recordScaleDown records the deletions that began, how deletions ended,
// and changed blocking reasons. A node's ScaleDownStarted comes before its
// DeleteNodes or ScaleDownFailed.
func (a *Autoscaler) recordScaleDown(ctx context.Context, st actuation.Status, now time.Time) {
	if len(st.Started) > 0 {
		a.lastScaleDownDelete = now
	}
	for _, s := range st.Started {
		a.record(ctx, Event{Type: EventScaleDownStarted, Group: s.Group, Nodes: []string{s.Node}, Pods: len(s.Pods),
			Message: string(s.Kind), PodRefs: PodRefsOf(s.Pods)})
	}
	for _, o := range st.Outcomes {
		if o.Failed() {
			a.record(ctx, Event{Type: EventScaleDownFailed, Group: o.Group, Nodes: []string{o.Node}, Reason: string(o.Failure),
				Message: failureMessage(o)})
			continue
		}
		a.record(ctx, Event{Type: EventDeleteNodes, Group: o.Group, Delta: -1, Nodes: []string{o.Node}, Pods: o.Evicted,
			Reason: DeleteReasonScaleDown, Message: string(o.Kind)})
	}
	seen := map[string]bool{}
	for _, b := range st.Plan.Blocked {
		seen[b.Node] = true
		if a.scaleDowner.blocked[b.Node] == b.Reason || b.Reason == scaledown.ReasonBeingDeleted {
			continue
		}
		a.scaleDowner.blocked[b.Node] = b.Reason
		a.record(ctx, Event{Type: EventScaleDownBlocked, Group: b.Group, Nodes: []string{b.Node}, Reason: string(b.Reason), Message: b.String()})
	}
	for n := range a.scaleDowner.blocked {
		if !seen[n] {
			delete(a.scaleDowner.blocked, n)
		}
	}
}

// failureMessage words a failed deletion as upstream's ScaleDownFailed
// node event: by the step that failed.
func failureMessage(o actuation.Outcome) string {
	switch {
	case o.Failure == actuation.FailureTaint:
		return "failed to mark the node as toBeDeleted/unschedulable: " + o.Err.Error()
	case o.Kind == actuation.KindNonEmpty:
		return "failed to drain and delete node: " + o.Err.Error()
	default:
		return "failed to delete empty node: " + o.Err.Error()
	}
}
