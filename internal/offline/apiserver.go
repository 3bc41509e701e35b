package offline

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kscale/kscale/internal/nodeautoscaler"
	"github.com/kscale/kscale/internal/nodeautoscaler/actuation"
	"github.com/kscale/kscale/internal/nodeautoscaler/scaledown"
)

// apiServer is the write side scale-down uses: node taints, evictions that
// honour the workloads' PodDisruptionBudgets as the eviction API does, and
// the budgets with their status computed as the disruption controller
// would. An accepted eviction deletes the pod at once and is recorded as an
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
	for _, b := range a.w.pdbs() {
		sel, err := metav1.LabelSelectorAsSelector(b.Spec.Selector)
		if err == nil && b.Namespace == cur.Namespace && sel.Matches(labels.Set(cur.Labels)) && b.Status.DisruptionsAllowed < 1 {
			return fmt.Errorf("evicting pod %s: budget %s: %w", k, b.Name, actuation.ErrEvictionRefused)
		}
	}
	a.w.cluster.removePods([]string{k})
	a.w.emit(Event{Type: "EvictPod", Nodes: []string{k}, Message: "from node " + cur.Spec.NodeName})
	return nil
}

// pdbs returns one budget per workload that declares one, with
// disruptionsAllowed computed from the pods that are ready now.
func (w *World) pdbs() []*policyv1.PodDisruptionBudget {
	now := w.clock.Now()
	var out []*policyv1.PodDisruptionBudget
	for _, wl := range w.workloads {
		if wl.spec.PDB == nil {
			continue
		}
		b := &policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Name: wl.spec.Name, Namespace: wl.spec.Namespace},
			Spec:       policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": wl.spec.Name}}},
		}
		if v := wl.spec.PDB.MinAvailable; v != "" {
			x := intstr.Parse(v)
			b.Spec.MinAvailable = &x
		}
		if v := wl.spec.PDB.MaxUnavailable; v != "" {
			x := intstr.Parse(v)
			b.Spec.MaxUnavailable = &x
		}
		expected := wl.replicas
		if d := wl.spec.Desired; d != nil && wl.replicas == wl.spec.Replicas {
			expected = *d
		}
		b.Status.DisruptionsAllowed = scaledown.DisruptionsAllowed(b, w.readyView(wl, now), expected)
		out = append(out, b)
	}
	return out
}

// readyView returns the workload's pods, Ready when bound and running for
// at least the workload's startup time.
func (w *World) readyView(wl *workload, now time.Time) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range w.cluster.ownedBy(wl.spec.Namespace, wl.spec.Name) {
		cp := *p
		cp.Status.Conditions = nil
		if podReady(p, wl.spec.StartupTime.Duration, now) && !w.unreadyPods[p.Namespace+"/"+p.Name] {
			cp.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
		}
		out = append(out, &cp)
	}
	return out
}

// PodsOnNode implements actuation.Cluster.
func (a apiServer) PodsOnNode(_ context.Context, node string) ([]*corev1.Pod, error) {
	return a.w.cluster.podsOnNode(node), nil
}
