package offline

import (
	"fmt"
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/simulator"
)

// bindInitial binds pods to the initial nodes, first fit, as the
// scheduler would have before the simulation starts.
func (w *World) bindInitial(snap *simulator.Snapshot, wl *workload, pods []*corev1.Pod) error {
	res := simulator.FilterSchedulable(snap, pods, simulator.FilterOptions{Now: w.clock.Now()})
	if len(res.Remaining) > 0 {
		return fmt.Errorf("workload %q: only %d of %d scheduled pods fit the initial nodes", wl.spec.Name, len(res.Placements), len(pods))
	}
	for _, pl := range res.Placements {
		w.markTerminating(wl, w.bindPod(pl.Pod, pl.NodeName, w.clock.Now()))
	}
	return nil
}

// initialSnapshot is the cluster's nodes and bound pods, which
// FilterSchedulable then keeps up to date as it places pods, so every
// workload's initial pods are placed with one snapshot.
func (w *World) initialSnapshot() (*simulator.Snapshot, error) {
	snap := simulator.NewSnapshot()
	w.cluster.storage.addTo(snap)
	for _, n := range w.cluster.nodeList() {
		if err := snap.AddNode(n); err != nil {
			return nil, err
		}
	}
	for _, p := range w.cluster.podList() {
		if p.Spec.NodeName != "" {
			if err := snap.AddPod(p); err != nil {
				return nil, err
			}
		}
	}
	return snap, nil
}

// initialPods are a workload's pods at the start, in creation order.
func (w *World) initialPods(wl *workload) []*corev1.Pod {
	if wl.spec.Kind == "Pods" {
		return w.podsOf(wl)
	}
	return w.cluster.ownedBy(wl.spec.Namespace, wl.spec.Name)
}

// bindOn binds pods to the nodes the workload's on names, nodes in name
// order: where they run in the cluster the scenario was taken from, fit or
// not, as a kubelet keeps running what it admitted.
func (w *World) bindOn(wl *workload, pods []*corev1.Pod) {
	i := 0
	for _, node := range slices.Sorted(maps.Keys(wl.spec.On)) {
		for range wl.spec.On[node] {
			b := w.bindPod(pods[i], node, w.clock.Now())
			w.markTerminating(wl, b)
			i++
		}
	}
}

// markTerminating sets the deletion timestamp of a bound pod of a
// terminating workload: it goes at the start plus terminating.
func (w *World) markTerminating(wl *workload, p *corev1.Pod) {
	if wl.spec.Terminating == nil {
		return
	}
	grace := int64(wl.spec.Terminating.Seconds())
	p.DeletionTimestamp = &metav1.Time{Time: Start.Add(wl.spec.Terminating.Duration)}
	p.DeletionGracePeriodSeconds = &grace
}

// expireTerminating removes the pods of terminating workloads once their
// time has passed (a pod whose deletion time is now still holds its node,
// as it does until its kubelet confirms the deletion).
func (w *World) expireTerminating(now time.Time) {
	for _, wl := range w.workloads {
		if wl.spec.Terminating != nil && wl.replicas > 0 && now.After(Start.Add(wl.spec.Terminating.Duration)) {
			wl.replicas = 0
			w.replicasChanged = true
		}
	}
}
