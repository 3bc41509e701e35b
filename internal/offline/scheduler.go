package offline

import (
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/nodeautoscaler/spreademulation"
	"github.com/kscale/kscale/internal/simulator"
)

// schedule plays kube-scheduler: pending pods are bound to nodes where
// every filter passes; the others get PodScheduled=False/Unschedulable.
func (w *World) schedule(now time.Time) error {
	pending := w.cluster.unboundPods()
	w.pending = len(pending)
	if len(pending) == 0 || (w.cluster.gen == w.schedGen && !timeDependent(pending)) {
		return nil
	}
	defer func() { w.schedGen = w.cluster.gen }()
	snap, kept, err := w.sched.sync(w.cluster)
	if err != nil {
		return fmt.Errorf("scheduling: %w", err)
	}
	if kept {
		// The placements are the cluster's to make: the kept snapshot
		// learns them as bound pods next time.
		snap.Fork()
		defer snap.Revert()
	} else if snap, err = w.cluster.freshSnapshot(); err != nil {
		return fmt.Errorf("scheduling: %w", err)
	}
	res := simulator.FilterSchedulable(snap, pending, simulator.FilterOptions{Now: now})
	w.bindAll(res.Placements, now)
	for _, p := range res.Remaining {
		if !unschedulable(p) {
			u := p.DeepCopy()
			u.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
				Reason: corev1.PodReasonUnschedulable, LastTransitionTime: metav1.NewTime(now)}}
			w.cluster.addPod(u)
		}
	}
	w.pending = len(res.Remaining)
	return nil
}

// freshSnapshot builds the scheduler's snapshot from scratch: every node,
// and the pods that occupy them in creation order.
func (c *cluster) freshSnapshot() (*simulator.Snapshot, error) {
	snap := simulator.NewSnapshot()
	c.storage.addTo(snap)
	for _, n := range c.nodeList() {
		if err := snap.AddNode(n); err != nil {
			return nil, err
		}
	}
	for _, p := range c.index.Bound() {
		if err := snap.AddPod(p); err != nil {
			return nil, err
		}
	}
	return snap, nil
}

// bindAll binds the placements and records one PodScheduled event per
// owner.
func (w *World) bindAll(placements []simulator.Placement, now time.Time) {
	type agg struct {
		pods  int
		nodes []string
	}
	byOwner := map[string]*agg{}
	var owners []string
	for _, pl := range placements {
		b := w.bindPod(pl.Pod, pl.NodeName, now)
		k := ownerName(b)
		a, ok := byOwner[k]
		if !ok {
			a = &agg{}
			byOwner[k] = a
			owners = append(owners, k)
		}
		a.pods++
		if !slices.Contains(a.nodes, pl.NodeName) {
			a.nodes = append(a.nodes, pl.NodeName)
		}
	}
	for _, k := range owners {
		a := byOwner[k]
		w.emit(Event{Type: "PodScheduled", Pods: a.pods, Nodes: a.nodes, Reason: k})
	}
}

func unschedulable(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Reason == corev1.PodReasonUnschedulable {
			return true
		}
	}
	return false
}

func ownerName(p *corev1.Pod) string {
	for _, r := range p.OwnerReferences {
		if r.Controller != nil && *r.Controller {
			return r.Name
		}
	}
	if n, ok := p.Labels["app"]; ok {
		return n
	}
	return p.Name
}

// timeDependent reports whether a pod's schedulability can change with time
// alone (a topology spread timeout).
func timeDependent(pods []*corev1.Pod) bool {
	for _, p := range pods {
		if _, ok := p.Annotations[spreademulation.TimeoutAnnotation]; ok {
			return true
		}
	}
	return false
}
