package clusterstate

import (
	"fmt"
	"time"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/nodeautoscaler/backoff"
)

// handleInstanceErrors backs off every group with instance creation errors
// not seen in the previous update and closes its scale-up request at once,
// so the next group is tried in the same loop.
func (r *Registry) handleInstanceErrors(now time.Time) []Event {
	seen := map[string]bool{}
	var events []Event
	for i := range r.groups {
		st := &r.groups[i]
		fresh := 0
		var first *cloudprovider.ErrorInfo
		for _, inst := range st.ErrorInstances {
			seen[inst.ProviderID] = true
			if !r.seenErrors[inst.ProviderID] {
				fresh++
				if first == nil {
					first = inst.Error
				}
			}
		}
		if fresh == 0 {
			continue
		}
		reason := backoff.Reason{Code: first.Code, Class: string(first.Class), Message: first.Message}
		events = append(events, Event{Type: ScaleUpFailed, Group: st.Group.ID, Reason: reason, Nodes: fresh,
			Message: fmt.Sprintf("%d instance(s) failed: %s", fresh, first.Message)})
		events = append(events, r.startBackoff(st.Group.ID, reason, now))
	}
	r.seenErrors = seen
	return events
}

// updateRequests closes fulfilled scale-up requests and times out late ones.
func (r *Registry) updateRequests(now time.Time) []Event {
	var events []Event
	for _, st := range r.groups {
		group := st.Group.ID
		req, ok := r.requests[group]
		if !ok {
			continue
		}
		if st.Group.TargetSize <= st.Readiness.provisioned() {
			delete(r.requests, group)
			r.cfg.Backoff.Remove(group)
			events = append(events, Event{Type: ScaleUpCompleted, Group: group})
			continue
		}
		if now.After(req.Deadline) {
			reason := backoff.Reason{Code: "timeout", Message: fmt.Sprintf("nodes did not become ready within %v", provisionTime(&st.Group, r.cfg.MaxNodeProvisionTime))}
			events = append(events, Event{Type: ScaleUpTimedOut, Group: group, Reason: reason, Message: reason.Message, Nodes: req.Increase})
			events = append(events, r.startBackoff(group, reason, now))
		}
	}
	return events
}

func (r *Registry) startBackoff(group string, reason backoff.Reason, now time.Time) Event {
	delete(r.requests, group)
	st := r.cfg.Backoff.Backoff(group, reason, now)
	r.backedOff[group] = st.BackedOff
	return Event{Type: BackoffStarted, Group: group, Reason: reason, Message: reason.Message}
}

// updateBackoffs refreshes every group's backoff status; in no-full-scale-down
// mode a backed-off group recovers once nothing is upcoming (its sentinel
// joined, or its target was lowered from outside).
func (r *Registry) updateBackoffs(now time.Time) []Event {
	r.cfg.Backoff.RemoveStale(now)
	if r.cfg.APIErrorBackoff != nil {
		r.cfg.APIErrorBackoff.RemoveStale(now)
	}
	var events []Event
	for i := range r.groups {
		st := &r.groups[i]
		id := st.Group.ID
		if r.cfg.NoFullScaleDown && r.cfg.Backoff.Status(id, now).BackedOff && st.Group.TargetSize <= st.Readiness.provisioned() {
			r.cfg.Backoff.Remove(id)
		}
		st.Backoff = r.backoffStatus(id, now)
		if r.backedOff[id] && !st.Backoff.BackedOff {
			events = append(events, Event{Type: BackoffCleared, Group: id, Message: "restoring scale-up"})
		}
		r.backedOff[id] = st.Backoff.BackedOff
		_, st.ScaleUpInProgress = r.requests[id]
	}
	for id := range r.backedOff {
		if _, ok := r.index[id]; !ok {
			delete(r.backedOff, id)
		}
	}
	return events
}

// collectLongUnregistered finds instances without a node for longer than
// the provision time. Placeholders of backed-off groups in
// no-full-scale-down mode are exempt: they are the sentinel.
func (r *Registry) collectLongUnregistered(now time.Time) {
	for i := range r.groups {
		st := &r.groups[i]
		st.LongUnregistered, st.Readiness.LongUnregistered = nil, 0
		for _, inst := range st.unregistered {
			if r.cfg.NoFullScaleDown && st.Backoff.BackedOff && inst.Placeholder {
				r.unregisteredSince[inst.ProviderID] = now
				continue
			}
			if now.Sub(r.unregisteredSince[inst.ProviderID]) > provisionTime(&st.Group, r.cfg.MaxNodeProvisionTime) {
				st.LongUnregistered = append(st.LongUnregistered, inst)
				st.Readiness.LongUnregistered++
			}
		}
	}
}

// updateUpcoming sets how many nodes each group will still deliver.
// Backed-off groups deliver none; draining nodes count as ready or unready
// and so are never upcoming.
func (r *Registry) updateUpcoming() {
	for i := range r.groups {
		st := &r.groups[i]
		rd := st.Readiness
		st.Upcoming = 0
		if !st.Backoff.BackedOff {
			st.Upcoming = max(0, st.Group.TargetSize-(rd.Ready+rd.Unready+rd.LongNotStarted+rd.LongUnregistered))
		}
	}
}

// updateIncorrectSizes tracks targets that differ from the registered
// count while no scale-up is open. In no-full-scale-down mode a backed-off
// group is expected to keep one more (the sentinel).
func (r *Registry) updateIncorrectSizes(now time.Time) {
	for i := range r.groups {
		st := &r.groups[i]
		id := st.Group.ID
		current := st.Readiness.Registered()
		if r.cfg.NoFullScaleDown && st.Backoff.BackedOff {
			current++
		}
		if _, open := r.requests[id]; open || current == st.Group.TargetSize {
			delete(r.incorrect, id)
			continue
		}
		next := incorrectSize{current: current, expected: st.Group.TargetSize, firstObserved: now}
		if prev, ok := r.incorrect[id]; ok && prev.current == next.current && prev.expected == next.expected {
			next.firstObserved = prev.firstObserved
		}
		r.incorrect[id] = next
	}
}

// SizeFixes returns the target decreases for groups whose target has been
// above the expected size for longer than the provision time.
func (r *Registry) SizeFixes(now time.Time) []SizeFix {
	var out []SizeFix
	for _, st := range r.groups {
		inc, ok := r.incorrect[st.Group.ID]
		if !ok || inc.current >= inc.expected || !inc.firstObserved.Add(provisionTime(&st.Group, r.cfg.MaxNodeProvisionTime)).Before(now) {
			continue
		}
		out = append(out, SizeFix{Group: st.Group.ID, Delta: inc.expected - inc.current})
	}
	return out
}

// ErrorInstancesToDelete returns, per group, the failed instances to
// delete: all of them, or all but the first (the sentinel) in
// no-full-scale-down mode.
func (r *Registry) ErrorInstancesToDelete() map[string][]cloudprovider.Instance {
	out := map[string][]cloudprovider.Instance{}
	for _, st := range r.groups {
		errs := st.ErrorInstances
		if r.cfg.NoFullScaleDown && len(errs) > 0 {
			errs = errs[1:]
		}
		if len(errs) > 0 {
			out[st.Group.ID] = errs
		}
	}
	return out
}
