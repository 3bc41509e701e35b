package kwok

import (
	"context"
	"fmt"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"
)

// renewLeases renews every managed node's Lease each RenewInterval until
// ctx ends, as kubelets do for node heartbeats.
func (k *Kubelet) renewLeases(ctx context.Context) {
	ticker := k.cfg.Clock.NewTicker(k.cfg.RenewInterval)
	defer ticker.Stop()
	for {
		k.renewAll(ctx)
		select {
		case <-ctx.Done():
			return
		case <-ticker.C():
		}
	}
}

func (k *Kubelet) renewAll(ctx context.Context) {
	nodes, err := k.nodes.List(labels.Everything())
	if err != nil {
		klog.FromContext(ctx).Error(err, "Listing nodes failed")
		return
	}
	for _, node := range nodes {
		// A booting machine has no kubelet yet: no status, no lease.
		if !k.isManaged(node) || node.DeletionTimestamp != nil || node.Annotations[AnnotationReadyAt] != "" {
			continue
		}
		if err := k.postReady(ctx, node); err != nil {
			klog.FromContext(ctx).Error(err, "Posting node status failed", "node", klog.KObj(node))
		}
		if err := k.renewLease(ctx, node); err != nil {
			klog.FromContext(ctx).Error(err, "Renewing node lease failed", "node", klog.KObj(node))
		}
	}
}

func (k *Kubelet) renewLease(ctx context.Context, node *corev1.Node) error {
	leases := k.cfg.Client.CoordinationV1().Leases(corev1.NamespaceNodeLease)
	now := metav1.NewMicroTime(k.cfg.Clock.Now())
	lease, err := leases.Get(ctx, node.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		_, err = leases.Create(ctx, k.newLease(node, now), metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("creating lease of node %s: %w", node.Name, err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading lease of node %s: %w", node.Name, err)
	}
	lease.Spec.RenewTime = &now
	if _, err := leases.Update(ctx, lease, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("renewing lease of node %s: %w", node.Name, err)
	}
	return nil
}

func (k *Kubelet) newLease(node *corev1.Node, now metav1.MicroTime) *coordinationv1.Lease {
	seconds := int32(k.cfg.LeaseDuration.Seconds())
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{
			Name: node.Name, Namespace: corev1.NamespaceNodeLease,
			// Owned by the node, so the garbage collector removes it with the node.
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "v1", Kind: "Node", Name: node.Name, UID: node.UID,
			}},
		},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &node.Name, LeaseDurationSeconds: &seconds, RenewTime: &now},
	}
}

// postReady sets the node's Ready condition back to True when something
// else changed it (the node lifecycle controller marks it Unknown when the
// Lease expired, for example while the API server was unavailable), as a
// kubelet posts its status. The cached node is copied, never modified.
func (k *Kubelet) postReady(ctx context.Context, node *corev1.Node) error {
	now := metav1.NewTime(k.cfg.Clock.Now())
	updated := node.DeepCopy()
	found := false
	for i := range updated.Status.Conditions {
		c := &updated.Status.Conditions[i]
		if c.Type != corev1.NodeReady {
			continue
		}
		found = true
		if c.Status == corev1.ConditionTrue {
			return nil
		}
		c.Status, c.Reason, c.Message = corev1.ConditionTrue, "KubeletReady", "kwok stand-in kubelet is posting ready status"
		c.LastHeartbeatTime, c.LastTransitionTime = now, now
	}
	if !found {
		updated.Status.Conditions = append(updated.Status.Conditions, corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionTrue,
			Reason: "KubeletReady", Message: "kwok stand-in kubelet is posting ready status", LastHeartbeatTime: now, LastTransitionTime: now})
	}
	if _, err := k.cfg.Client.CoreV1().Nodes().UpdateStatus(ctx, updated, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("posting Ready status of node %s: %w", node.Name, err)
	}
	return nil
}
