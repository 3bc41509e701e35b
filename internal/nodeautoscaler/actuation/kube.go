package actuation

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
)

// Kube is the Cluster of a live cluster, through client-go. It needs RBAC
// to get and update nodes, get and list pods and create pods/eviction.
type Kube struct {
	client kubernetes.Interface
}

var _ Cluster = (*Kube)(nil)

// NewKube returns a Cluster backed by client.
func NewKube(client kubernetes.Interface) *Kube { return &Kube{client: client} }

// AddTaint implements Cluster.
func (k *Kube) AddTaint(ctx context.Context, node string, taint corev1.Taint) error {
	err := k.updateNode(ctx, node, func(n *corev1.Node) bool {
		if slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == taint.Key }) {
			return false
		}
		n.Spec.Taints = append(n.Spec.Taints, taint)
		return true
	})
	if err != nil {
		return fmt.Errorf("adding taint %s to node %s: %w", taint.Key, node, err)
	}
	return nil
}

// RemoveTaints implements Cluster.
func (k *Kube) RemoveTaints(ctx context.Context, node string, keys ...string) error {
	err := k.updateNode(ctx, node, func(n *corev1.Node) bool {
		before := len(n.Spec.Taints)
		n.Spec.Taints = slices.DeleteFunc(n.Spec.Taints, func(t corev1.Taint) bool { return slices.Contains(keys, t.Key) })
		return len(n.Spec.Taints) != before
	})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("removing taints %v from node %s: %w", keys, node, err)
	}
	return nil
}

// Cordon implements Cluster.
func (k *Kube) Cordon(ctx context.Context, node string, unschedulable bool) error {
	err := k.updateNode(ctx, node, func(n *corev1.Node) bool {
		if n.Spec.Unschedulable == unschedulable {
			return false
		}
		n.Spec.Unschedulable = unschedulable
		return true
	})
	if !unschedulable && apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("setting node %s unschedulable=%v: %w", node, unschedulable, err)
	}
	return nil
}

// GetNode implements Cluster.
func (k *Kube) GetNode(ctx context.Context, node string) (*corev1.Node, error) {
	n, err := k.client.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("getting node %s: %w", node, err)
	}
	return n, nil
}

// updateNode applies change to the taints of a fresh copy of the node and,
// when change reports a difference, writes the node back with an update,
// as upstream does (its RBAC grants get and update on nodes, not patch).
// The update carries the read resourceVersion, so a node changed in
// between makes it conflict and the change be retried on the new version.
func (k *Kube) updateNode(ctx context.Context, name string, change func(*corev1.Node) bool) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n, err := k.client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if !change(n) {
			return nil
		}
		_, err = k.client.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
		return err
	})
}

// EvictPod implements Cluster with a policy/v1 Eviction carrying a UID
// precondition. 429 (a budget forbids it) maps to ErrEvictionRefused; 404
// and 409 (the UID precondition failed) map to ErrPodGone.
func (k *Kube) EvictPod(ctx context.Context, pod *corev1.Pod, gracePeriodSeconds int64) error {
	uid := pod.UID
	ev := &policyv1.Eviction{
		ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace},
		DeleteOptions: &metav1.DeleteOptions{GracePeriodSeconds: &gracePeriodSeconds,
			Preconditions: &metav1.Preconditions{UID: &uid}},
	}
	err := k.client.PolicyV1().Evictions(pod.Namespace).Evict(ctx, ev)
	switch {
	case err == nil:
		return nil
	case apierrors.IsTooManyRequests(err):
		return fmt.Errorf("evicting pod %s/%s: %w: %v", pod.Namespace, pod.Name, ErrEvictionRefused, err)
	case apierrors.IsNotFound(err), apierrors.IsConflict(err):
		return fmt.Errorf("evicting pod %s/%s: %w: %v", pod.Namespace, pod.Name, ErrPodGone, err)
	}
	return fmt.Errorf("evicting pod %s/%s: %w", pod.Namespace, pod.Name, err)
}

// GetPod implements Cluster.
func (k *Kube) GetPod(ctx context.Context, namespace, name string) (*corev1.Pod, error) {
	p, err := k.client.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("getting pod %s/%s: %w", namespace, name, ErrPodGone)
	}
	if err != nil {
		return nil, fmt.Errorf("getting pod %s/%s: %w", namespace, name, err)
	}
	return p, nil
}

// PodsOnNode implements Cluster with a field selector on spec.nodeName.
func (k *Kube) PodsOnNode(ctx context.Context, node string) ([]*corev1.Pod, error) {
	list, err := k.client.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + node})
	if err != nil {
		return nil, fmt.Errorf("listing pods on node %s: %w", node, err)
	}
	out := make([]*corev1.Pod, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	return out, nil
}
