package machinesim

import (
	"context"
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"

	kwokstages "github.com/kscale/kscale/deploy/kwok"
)

// NodeSpec is the Node a booted machine registers.
type NodeSpec struct {
	// Name is the node's name (and hostname label).
	Name string
	// ProviderID is the node's spec.providerID.
	ProviderID string
	// Labels and Annotations are added to the node's own.
	Labels, Annotations map[string]string
	// Shape is the node's capacity, extra labels and taints.
	Shape Shape
}

// RegisterNode registers a Ready node as a booted machine's kubelet would,
// annotated for the real kwok controller (testenv.Options.Kwok), which
// plays its kubelet from then on. A node that exists already is left as it
// is. Both the machinesim stand-in and the Cluster API infrastructure
// stand-in (testenv/capienv) register their nodes with it.
func RegisterNode(ctx context.Context, c kubernetes.Interface, spec NodeSpec) error {
	annotations := maps.Clone(spec.Annotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[kwokstages.NodeAnnotation] = kwokstages.NodeAnnotationValue
	l := map[string]string{corev1.LabelHostname: spec.Name, corev1.LabelArchStable: "amd64", corev1.LabelOSStable: "linux"}
	for k, v := range spec.Labels {
		l[k] = v
	}
	for k, v := range spec.Shape.Labels {
		l[k] = v
	}
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: spec.Name, Labels: l, Annotations: annotations},
		Spec: corev1.NodeSpec{ProviderID: spec.ProviderID, Taints: spec.Shape.Taints}}
	created, err := c.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("creating node %s: %w", n.Name, err)
	}
	now := metav1.Now()
	status := corev1.NodeStatus{Capacity: spec.Shape.Capacity.DeepCopy(), Allocatable: spec.Shape.Capacity.DeepCopy(),
		Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
			LastHeartbeatTime: now, LastTransitionTime: now}},
		Phase: corev1.NodeRunning}
	nodes := c.CoreV1().Nodes()
	// kwok (which plays the node's kubelet) and the API server's admission
	// touch a new node at once: both writes retry on conflicts.
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		created.Status = *status.DeepCopy()
		ready, err := nodes.UpdateStatus(ctx, created, metav1.UpdateOptions{})
		if err != nil {
			if latest, getErr := nodes.Get(ctx, n.Name, metav1.GetOptions{}); getErr == nil {
				created = latest
			}
			return err
		}
		created = ready
		return nil
	})
	if err != nil {
		return fmt.Errorf("writing the status of node %s: %w", n.Name, err)
	}
	// The API server taints new nodes not-ready; the node lifecycle
	// controller lifts it once the node is Ready. The workload cluster runs
	// no node lifecycle controller, so the cloud stand-in plays it too.
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if !slices.ContainsFunc(created.Spec.Taints, isNotReady) {
			return nil
		}
		created.Spec.Taints = slices.DeleteFunc(created.Spec.Taints, isNotReady)
		_, err := nodes.Update(ctx, created, metav1.UpdateOptions{})
		if err != nil {
			if latest, getErr := nodes.Get(ctx, n.Name, metav1.GetOptions{}); getErr == nil {
				created = latest
			}
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("lifting the not-ready taint of node %s: %w", n.Name, err)
	}
	return nil
}

func isNotReady(t corev1.Taint) bool { return t.Key == corev1.TaintNodeNotReady }
