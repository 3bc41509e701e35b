package capienv

import (
	"context"
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/kscale/kscale/internal/cloudprovider/clusterapi/clusterapitest"
	"github.com/kscale/kscale/internal/testenv"
)

// clusterNameLabel names the Cluster a Secret belongs to; the manager
// caches only Secrets that carry it.
const clusterNameLabel = "cluster.x-k8s.io/cluster-name"

// CreateCluster creates the Cluster name in namespace of the management
// cluster for the workload environment: its kubeconfig Secret (how the
// manager reaches the workload cluster's Nodes) and a stand-in control
// plane that reports itself initialized and externally managed, as a
// hosted control plane (EKS, AKS, GKE) does: Cluster API deletes the Node
// of a deleted worker Machine only when the cluster has control-plane
// Machines or such a control plane. The Cluster has no
// infrastructure reference, so Cluster API counts its infrastructure as
// provisioned.
func CreateCluster(ctx context.Context, management *testenv.Env, workload *testenv.Env, namespace, name string) error {
	kubeconfig, err := os.ReadFile(workload.KubeconfigPath)
	if err != nil {
		return fmt.Errorf("reading the workload kubeconfig: %w", err)
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name + "-kubeconfig", Namespace: namespace,
		Labels: map[string]string{clusterNameLabel: name}},
		Type: "cluster.x-k8s.io/secret", Data: map[string][]byte{"value": kubeconfig}}
	if _, err := management.Client.CoreV1().Secrets(namespace).Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating the kubeconfig Secret of cluster %s: %w", name, err)
	}
	dyn, err := dynamic.NewForConfig(management.Config)
	if err != nil {
		return fmt.Errorf("building a dynamic client: %w", err)
	}
	cp := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{}}}
	cp.SetAPIVersion(ControlPlanes.GroupVersion().String())
	cp.SetKind(ControlPlaneKind)
	cp.SetNamespace(namespace)
	cp.SetName(name)
	created, err := dyn.Resource(ControlPlanes).Namespace(namespace).Create(ctx, cp, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("creating the control plane of cluster %s: %w", name, err)
	}
	_ = unstructured.SetNestedField(created.Object, true, "status", "initialization", "controlPlaneInitialized")
	_ = unstructured.SetNestedField(created.Object, true, "status", "externalManagedControlPlane")
	if _, err := dyn.Resource(ControlPlanes).Namespace(namespace).UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("initializing the control plane of cluster %s: %w", name, err)
	}
	cluster := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{
		"controlPlaneRef": map[string]any{"apiGroup": ControlPlanes.Group, "kind": ControlPlaneKind, "name": name}}}}
	cluster.SetAPIVersion(clusterapitest.GroupVersion.String())
	cluster.SetKind("Cluster")
	cluster.SetNamespace(namespace)
	cluster.SetName(name)
	if _, err := dyn.Resource(Clusters).Namespace(namespace).Create(ctx, cluster, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating cluster %s: %w", name, err)
	}
	return nil
}
