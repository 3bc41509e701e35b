package nodeautoscaler

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kscale/kscale/internal/simulator"
)

// pendingPods decides which unbound pods the loop tries to help: those
// kube-scheduler marked unschedulable, plus, for the schedulers named by
// --bypassed-scheduler-names, pods their scheduler has not processed yet;
// with --allowed-scheduler-names set, only pods of those schedulers. With
// twins (--scale-up-unprocessed-twins), a pod kube-scheduler has not tried
// yet joins when a pod of the same scheduling class
// (simulator.SameSchedulingClass: same controller, scheduler and
// scheduling-relevant fields) was marked: kube-scheduler tries the pods of a
// burst one after another, and at thousands of nodes marks 50 of them over
// seconds; their twin's verdict is theirs, so one scale-up covers the burst.
type pendingPods struct {
	allowed  map[string]bool // nil: every scheduler
	bypassed map[string]bool
	twins    bool
}

// maxTwinReps bounds the marked pods of one controller that an unprocessed
// pod is compared with: a controller's pods rarely differ, so a few
// distinct ones cover it.
const maxTwinReps = 4

func newPendingPods(allowed, bypassed []string, twins bool) pendingPods {
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
	return pendingPods{allowed: set(allowed), bypassed: set(bypassed), twins: twins}
}

// pendingKind says why the loop helps a pod.
type pendingKind int

const (
	notPending  pendingKind = iota
	marked                  // kube-scheduler marked it unschedulable
	unprocessed             // not processed yet: its scheduler is bypassed, or it is a marked pod's twin
)

// pick returns the pods of unbound (in its order) the loop tries to help.
func (f pendingPods) pick(unbound []*corev1.Pod) []*corev1.Pod {
	kinds := f.classify(unbound)
	var out []*corev1.Pod
	for i, p := range unbound {
		if kinds[i] != notPending {
			out = append(out, p)
		}
	}
	return out
}

// count counts, among the pods of the allowed schedulers, those
// kube-scheduler marked unschedulable and those not processed yet that the
// loop helps (bypassed schedulers' pods and marked pods' twins).
func (f pendingPods) count(unbound []*corev1.Pod) (unschedulable, notProcessed int) {
	for _, k := range f.classify(unbound) {
		switch k {
		case marked:
			unschedulable++
		case unprocessed:
			notProcessed++
		}
	}
	return unschedulable, notProcessed
}

// classify tells, for each pod of unbound, why the loop helps it.
func (f pendingPods) classify(unbound []*corev1.Pod) []pendingKind {
	kinds := make([]pendingKind, len(unbound))
	var reps map[types.UID][]*corev1.Pod // marked pods by controller, distinct ones
	var waiting []int                    // unprocessed pods that may be twins
	for i, p := range unbound {
		name := schedulerName(p)
		if f.allowed != nil && !f.allowed[name] {
			continue
		}
		switch {
		case IsUnschedulable(p):
			kinds[i] = marked
			if f.twins {
				reps = addTwinRep(reps, p)
			}
		case f.bypassed[name] && IsSchedulerUnprocessed(p):
			kinds[i] = unprocessed
		case f.twins && IsSchedulerUnprocessed(p):
			waiting = append(waiting, i)
		}
	}
	for _, i := range waiting {
		if hasTwin(reps, unbound[i]) {
			kinds[i] = unprocessed
		}
	}
	return kinds
}

// addTwinRep remembers a marked pod unless its controller already has an
// equivalent one or maxTwinReps of them.
func addTwinRep(reps map[types.UID][]*corev1.Pod, p *corev1.Pod) map[types.UID][]*corev1.Pod {
	ref := metav1.GetControllerOfNoCopy(p)
	if ref == nil {
		return reps
	}
	if reps == nil {
		reps = map[types.UID][]*corev1.Pod{}
	}
	list := reps[ref.UID]
	if len(list) >= maxTwinReps || slices.ContainsFunc(list, func(r *corev1.Pod) bool { return simulator.SameSchedulingClass(r, p) }) {
		return reps
	}
	reps[ref.UID] = append(list, p)
	return reps
}

// hasTwin reports whether a remembered marked pod is of p's scheduling class.
func hasTwin(reps map[types.UID][]*corev1.Pod, p *corev1.Pod) bool {
	ref := metav1.GetControllerOfNoCopy(p)
	if ref == nil {
		return false
	}
	return slices.ContainsFunc(reps[ref.UID], func(r *corev1.Pod) bool { return simulator.SameSchedulingClass(r, p) })
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
