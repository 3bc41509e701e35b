package offline

import (
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Usage is CPU and memory in millicores and bytes.
type Usage struct {
	// CPU is in millicores.
	CPU int64 `json:"cpu"`
	// Memory is in bytes.
	Memory int64 `json:"memory"`
}

func (u *Usage) add(o Usage, sign int64) {
	u.CPU += sign * o.CPU
	u.Memory += sign * o.Memory
}

// PodWait is how long one pod waited for a node.
type PodWait struct {
	// Pod is namespace/name.
	Pod string `json:"pod"`
	// Workload is the owning workload.
	Workload string `json:"workload"`
	// Created is when the pod was created, since the start (pods that
	// exist at the start count from it).
	Created time.Duration `json:"-"`
	// Wait is from creation to binding, or to the end for a pod never
	// bound.
	Wait time.Duration `json:"-"`
	// Bound is false for a pod still pending at the end.
	Bound bool `json:"bound"`
}

// podUsage is what a pod takes from its node while it is bound and not
// finished: the sum of its containers' requests.
func podUsage(p *corev1.Pod) Usage {
	if p.Spec.NodeName == "" || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		return Usage{}
	}
	var u Usage
	for _, c := range p.Spec.Containers {
		u.CPU += c.Resources.Requests.Cpu().MilliValue()
		u.Memory += c.Resources.Requests.Memory().Value()
	}
	return u
}

func nodeUsage(n *corev1.Node) Usage {
	return Usage{CPU: n.Status.Allocatable.Cpu().MilliValue(), Memory: n.Status.Allocatable.Memory().Value()}
}

// recordWait notes a pod's wait when it is bound for the first time after
// the start (pods placed at the start never waited).
func (w *World) recordWait(p *corev1.Pod, now time.Time) {
	if w.waited == nil {
		w.waited = map[string]bool{}
	}
	k := podKey(p)
	if now.Equal(Start) || w.waited[k] || controllerKind(p) == "DaemonSet" {
		return
	}
	w.waited[k] = true
	created := max(p.CreationTimestamp.Sub(Start), 0)
	w.res.Waits = append(w.res.Waits, PodWait{Pod: k, Workload: ownerName(p), Created: created, Wait: now.Sub(Start) - created, Bound: true})
}

// recordPendingWaits adds the pods still pending at the end, waiting
// since their creation.
func (w *World) recordPendingWaits() {
	now := w.clock.Now()
	for _, p := range w.cluster.podList() {
		if p.Spec.NodeName == "" && p.Status.Phase == corev1.PodPending {
			created := max(p.CreationTimestamp.Sub(Start), 0)
			w.res.Waits = append(w.res.Waits, PodWait{Pod: podKey(p), Workload: ownerName(p), Created: created, Wait: now.Sub(Start) - created})
		}
	}
	sort.SliceStable(w.res.Waits, func(i, j int) bool { return w.res.Waits[i].Wait > w.res.Waits[j].Wait })
}

func controllerKind(p *corev1.Pod) string {
	for _, r := range p.OwnerReferences {
		if r.Controller != nil && *r.Controller {
			return r.Kind
		}
	}
	return ""
}
