package testenv

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
)

// CreateNode creates a Node and then writes its status (which a create
// ignores), as a kubelet registering the node would. The status write is
// retried on conflicts: kube-controller-manager's node controllers touch a
// new node at once (taints). It returns the stored node.
func (e *Env) CreateNode(ctx context.Context, node *corev1.Node) (*corev1.Node, error) {
	status := node.Status.DeepCopy()
	nodes := e.Client.CoreV1().Nodes()
	latest, err := nodes.Create(ctx, node, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("creating node %s: %w", node.Name, err)
	}
	var updated *corev1.Node
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		latest.Status = *status.DeepCopy()
		updated, err = nodes.UpdateStatus(ctx, latest, metav1.UpdateOptions{})
		if err == nil {
			return nil
		}
		if fresh, getErr := nodes.Get(ctx, node.Name, metav1.GetOptions{}); getErr == nil {
			latest = fresh
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("writing status of node %s: %w", node.Name, err)
	}
	return updated, nil
}
