package nodeautoscaler

import (
	corev1 "k8s.io/api/core/v1"
)

// pendingPods decides which unbound pods the loop tries to help: those
// kube-scheduler marked unschedulable, plus, for the schedulers named by
// --bypassed-scheduler-names, pods their scheduler has not processed yet;
// with --allowed-scheduler-names set, only pods of those schedulers.
type pendingPods struct {
	allowed  map[string]bool // nil: every scheduler
	bypassed map[string]bool
}

func newPendingPods(allowed, bypassed []string) pendingPods {
	set := func(names []string) map[string]bool {
		if len(names) == 0 {
			return nil
		}
		m := make(map[string]bool, len(names))
		for _, n := range names {
			m[n] = true
		}
		return m
	}
	return pendingPods{allowed: set(allowed), bypassed: set(bypassed)}
}

// is reports whether the loop tries to help p.
func (f pendingPods) is(p *corev1.Pod) bool {
	if f.allowed != nil && !f.allowed[schedulerName(p)] {
		return false
	}
	return IsUnschedulable(p) || (f.bypassed[schedulerName(p)] && IsSchedulerUnprocessed(p))
}

// count counts, among the pods of the allowed schedulers, those
// kube-scheduler marked unschedulable and those of the bypassed schedulers
// no scheduler has processed yet (none without bypassed schedulers).
func (f pendingPods) count(pods []*corev1.Pod) (unschedulable, unprocessed int) {
	for _, p := range pods {
		name := schedulerName(p)
		if f.allowed != nil && !f.allowed[name] {
			continue
		}
		switch {
		case IsUnschedulable(p):
			unschedulable++
		case f.bypassed[name] && IsSchedulerUnprocessed(p):
			unprocessed++
		}
	}
	return unschedulable, unprocessed
}

func schedulerName(p *corev1.Pod) string {
	if p.Spec.SchedulerName == "" {
		return corev1.DefaultSchedulerName
	}
	return p.Spec.SchedulerName
}

// IsSchedulerUnprocessed reports whether no scheduler has decided on the
// pod yet: not bound, not terminating or finished, and without a
// PodScheduled condition or with one that is False without a reason.
func IsSchedulerUnprocessed(p *corev1.Pod) bool {
	if p.Spec.NodeName != "" || p.DeletionTimestamp != nil || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled {
			return c.Status == corev1.ConditionFalse && c.Reason == ""
		}
	}
	return true
}
