package input

import (
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/vpa/model"
	"github.com/kscale/kscale/internal/vpa/recommendation"
)

// reasonOOMKilled is the termination reason of a container killed for memory.
const reasonOOMKilled = "OOMKilled"

// OOM is one out-of-memory kill.
type OOM struct {
	// Pod is the pod of the killed container.
	Pod model.PodID
	// Container is the killed container.
	Container string
	// Time is when the container terminated.
	Time time.Time
	// MemoryBytes is the container's memory request in the pod version in
	// which the kill happened (or the usage an eviction event reported).
	MemoryBytes float64
}

// OOMsFromPodUpdate returns the OOM kills that the change from old to cur
// reveals: a container now terminated with reason OOMKilled that was not
// before, or a restart whose last termination was OOMKilled.
func OOMsFromPodUpdate(old, cur *corev1.Pod) []OOM {
	var out []OOM
	id := model.PodID{Namespace: cur.Namespace, Name: cur.Name}
	for _, cs := range cur.Status.ContainerStatuses {
		prev := containerStatus(old, cs.Name)
		if prev == nil {
			continue
		}
		var term *corev1.ContainerStateTerminated
		switch {
		case isOOM(cs.State.Terminated) && !sameTermination(prev.State.Terminated, cs.State.Terminated):
			term = cs.State.Terminated
		case cs.RestartCount > prev.RestartCount && isOOM(cs.LastTerminationState.Terminated) &&
			!sameTermination(prev.State.Terminated, cs.LastTerminationState.Terminated):
			term = cs.LastTerminationState.Terminated
		default:
			continue
		}
		out = append(out, OOM{Pod: id, Container: cs.Name, Time: term.FinishedAt.Time, MemoryBytes: memoryRequest(old, cs.Name)})
	}
	return out
}

// isOOM reports whether t is a termination for memory.
func isOOM(t *corev1.ContainerStateTerminated) bool {
	return t != nil && t.Reason == reasonOOMKilled
}

// sameTermination reports whether a and b describe the same termination.
func sameTermination(a, b *corev1.ContainerStateTerminated) bool {
	return a != nil && b != nil && a.Reason == b.Reason && a.FinishedAt.Equal(&b.FinishedAt)
}

// containerStatus returns the status of the named container in p.
func containerStatus(p *corev1.Pod, name string) *corev1.ContainerStatus {
	for i := range p.Status.ContainerStatuses {
		if p.Status.ContainerStatuses[i].Name == name {
			return &p.Status.ContainerStatuses[i]
		}
	}
	return nil
}

// memoryRequest returns the named container's memory request in bytes, as
// it runs (status.containerStatuses[].resources before the spec).
func memoryRequest(p *corev1.Pod, name string) float64 {
	for i := range p.Spec.Containers {
		if p.Spec.Containers[i].Name == name {
			if q, ok := recommendation.ActualResources(p, i).Requests[corev1.ResourceMemory]; ok {
				return float64(q.Value())
			}
		}
	}
	return 0
}

// OOMsFromEvictionEvent returns the OOMs a kubelet eviction event for memory
// pressure reports through its offending_containers annotations.
func OOMsFromEvictionEvent(ev *corev1.Event) []OOM {
	if ev.Reason != "Evicted" || ev.InvolvedObject.Kind != "Pod" || ev.Annotations["starved_resource"] != string(corev1.ResourceMemory) {
		return nil
	}
	names := strings.Split(ev.Annotations["offending_containers"], ",")
	usages := strings.Split(ev.Annotations["offending_containers_usage"], ",")
	if len(names) != len(usages) {
		return nil
	}
	id := model.PodID{Namespace: ev.InvolvedObject.Namespace, Name: ev.InvolvedObject.Name}
	var out []OOM
	for i, name := range names {
		q, err := parseQuantity(usages[i])
		if name == "" || err != nil {
			continue
		}
		out = append(out, OOM{Pod: id, Container: name, Time: ev.CreationTimestamp.Time, MemoryBytes: q})
	}
	return out
}

// OOMObserver collects OOM kills from pod updates and eviction events
// between two recommender loops. It is safe for concurrent use.
type OOMObserver struct {
	mu   sync.Mutex
	ooms []OOM
}

// OnPodUpdate records the OOMs revealed by a pod update.
func (o *OOMObserver) OnPodUpdate(old, cur *corev1.Pod) {
	if ooms := OOMsFromPodUpdate(old, cur); len(ooms) > 0 {
		o.mu.Lock()
		o.ooms = append(o.ooms, ooms...)
		o.mu.Unlock()
	}
}

// OnEvent records the OOMs an eviction event reports.
func (o *OOMObserver) OnEvent(ev *corev1.Event) {
	if ooms := OOMsFromEvictionEvent(ev); len(ooms) > 0 {
		o.mu.Lock()
		o.ooms = append(o.ooms, ooms...)
		o.mu.Unlock()
	}
}

// Drain returns and forgets the OOMs collected so far.
func (o *OOMObserver) Drain() []OOM {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := o.ooms
	o.ooms = nil
	return out
}
