package testenv

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CreateNode creates a Node and then writes its status (which a create
// ignores), as a kubelet registering the node would. It returns the stored node.
func (e *Env) CreateNode(ctx context.Context, node *corev1.Node) (*corev1.Node, error) {
	status := node.Status.DeepCopy()
	created, err := e.Client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("creating node %s: %w", node.Name, err)
	}
	created.Status = *status
	updated, err := e.Client.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{})
	if err != nil {
		return nil, fmt.Errorf("writing status of node %s: %w", node.Name, err)
	}
	return updated, nil
}
