package offline

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/nodeautoscaler"
	"github.com/kscale/kscale/internal/nodeautoscaler/actuation"
)

// apiServer is the write side scale-down uses: node taints and evictions
// that honour the PodDisruptionBudgets as the eviction API does
// (actuation.CheckEviction), their status computed as the disruption
// controller would (World.pdbs). An accepted eviction deletes the pod at once and is recorded as an
// EvictPod action; the workload's controller replaces the pod next tick.
type apiServer struct{ w *World }

var _ nodeautoscaler.ScaleDownCluster = apiServer{}

// AddTaint implements actuation.Cluster.
func (a apiServer) AddTaint(_ context.Context, node string, taint corev1.Taint) error {
	n, ok := a.w.cluster.nodes[node]
	if !ok {
		return fmt.Errorf("tainting node %q: no such node", node)
	}
	for _, t := range n.Spec.Taints {
		if t.Key == taint.Key {
			return nil
		}
	}
	return a.w.taint(node, taint)
}

// RemoveTaints implements actuation.Cluster.
func (a apiServer) RemoveTaints(_ context.Context, node string, keys ...string) error {
	if _, ok := a.w.cluster.nodes[node]; !ok {
		return nil
	}
	for _, k := range keys {
		if err := a.w.untaint(node, k); err != nil {
			return err
		}
	}
	return nil
}

// Cordon implements actuation.Cluster: the node's spec.unschedulable is
// set, which the simulated scheduler honours.
func (a apiServer) Cordon(_ context.Context, node string, unschedulable bool) error {
	n, ok := a.w.cluster.nodes[node]
	if !ok {
		if !unschedulable {
			return nil
		}
		return fmt.Errorf("cordoning node %q: no such node", node)
	}
	if n.Spec.Unschedulable == unschedulable {
		return nil
	}
	c := n.DeepCopy()
	c.Spec.Unschedulable = unschedulable
	a.w.cluster.addNode(c)
	return nil
}

// GetNode implements actuation.Cluster.
func (a apiServer) GetNode(_ context.Context, node string) (*corev1.Node, error) {
	n, ok := a.w.cluster.nodes[node]
	if !ok {
		return nil, fmt.Errorf("getting node %q: no such node", node)
	}
	return n, nil
}

// GetPod implements actuation.Cluster.
func (a apiServer) GetPod(_ context.Context, namespace, name string) (*corev1.Pod, error) {
	p, ok := a.w.cluster.pods[namespace+"/"+name]
	if !ok {
		return nil, fmt.Errorf("getting pod %s/%s: %w", namespace, name, actuation.ErrPodGone)
	}
	return p, nil
}

// EvictPod implements actuation.Cluster.
func (a apiServer) EvictPod(ctx context.Context, pod *corev1.Pod, _ int64) error {
	k := podKey(pod)
	cur, ok := a.w.cluster.pods[k]
	if !ok || cur.UID != pod.UID {
		return fmt.Errorf("evicting pod %s: %w", k, actuation.ErrPodGone)
	}
	if err := actuation.CheckEviction(a.w.readyCopy(cur, a.w.clock.Now()), a.w.pdbs()); err != nil {
		return err
	}
	a.w.cluster.removePods([]string{k})
	a.w.emit(Event{Type: "EvictPod", Nodes: []string{k}, Message: "from node " + cur.Spec.NodeName})
	return nil
}

// PodsOnNode implements actuation.Cluster.
func (a apiServer) PodsOnNode(_ context.Context, node string) ([]*corev1.Pod, error) {
	return a.w.cluster.podsOnNode(node), nil
}
