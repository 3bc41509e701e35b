package mcmtest

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/kscale/kscale/internal/cloudprovider/mcm"
)

// Class describes a MachineClass with a nodeTemplate.
type Class struct {
	// Namespace and Name name the class.
	Namespace, Name string
	// Capacity is nodeTemplate.capacity (MCM spells GPUs "gpu").
	Capacity map[string]string
	// InstanceType, Region, Zone and Arch are the nodeTemplate's.
	InstanceType, Region, Zone, Arch string
	// NoTemplate leaves nodeTemplate out.
	NoTemplate bool
	// Secret names the class's secretRef (in Namespace); empty leaves it
	// out. MCM's machine controller needs one with a userData key.
	Secret string
}

// Object returns the MachineClass.
func (c Class) Object() *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"providerSpec": map[string]any{}, "provider": "Sim"}}
	u.SetAPIVersion(mcm.GroupVersion.String())
	u.SetKind("MachineClass")
	u.SetNamespace(c.Namespace)
	u.SetName(c.Name)
	if c.Secret != "" {
		u.Object["secretRef"] = map[string]any{"name": c.Secret, "namespace": c.Namespace}
	}
	if c.NoTemplate {
		return u
	}
	capacity := map[string]any{}
	for k, v := range c.Capacity {
		capacity[k] = v
	}
	nt := map[string]any{"capacity": capacity, "instanceType": c.InstanceType, "region": c.Region, "zone": c.Zone}
	if c.Arch != "" {
		nt["architecture"] = c.Arch
	}
	u.Object["nodeTemplate"] = nt
	return u
}

// Deployment describes a MachineDeployment as Gardener writes it.
type Deployment struct {
	// Namespace and Name name it; Class names its MachineClass.
	Namespace, Name, Class string
	// Replicas is spec.replicas.
	Replicas int
	// NodeLabels and Taints are the node template's.
	NodeLabels map[string]string
	Taints     []corev1.Taint
}

// Object returns the MachineDeployment: selector and template label
// name=<name>, the rolling-update strategy, the class reference and the
// node template.
func (d Deployment) Object() *unstructured.Unstructured {
	labels := map[string]any{}
	for k, v := range d.NodeLabels {
		labels[k] = v
	}
	var taints []any
	for _, t := range d.Taints {
		taints = append(taints, map[string]any{"key": t.Key, "value": t.Value, "effect": string(t.Effect)})
	}
	nodeSpec := map[string]any{}
	if len(taints) > 0 {
		nodeSpec["taints"] = taints
	}
	spec := map[string]any{
		// Gardener's rolling update of a worker pool; MCM rejects a
		// MachineDeployment without a strategy type.
		"strategy": map[string]any{"type": "RollingUpdate",
			"rollingUpdate": map[string]any{"maxSurge": int64(1), "maxUnavailable": int64(0)}},
		"selector": map[string]any{"matchLabels": map[string]any{mcm.DeploymentNameLabel: d.Name}},
		"template": map[string]any{
			"metadata": map[string]any{"labels": map[string]any{mcm.DeploymentNameLabel: d.Name}},
			"spec": map[string]any{
				"class":        map[string]any{"kind": "MachineClass", "name": d.Class},
				"nodeTemplate": map[string]any{"metadata": map[string]any{"labels": labels}, "spec": nodeSpec},
			},
		},
	}
	// MCM's Go type omits replicas 0, so MCM writes a MachineDeployment
	// at zero without the field; so does this builder.
	if d.Replicas > 0 {
		spec["replicas"] = int64(d.Replicas)
	}
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetAPIVersion(mcm.GroupVersion.String())
	u.SetKind("MachineDeployment")
	u.SetNamespace(d.Namespace)
	u.SetName(d.Name)
	return u
}

// CreateMCMDeployment creates the machine-controller-manager Deployment
// in namespace with available replicas written through the status
// subresource (no controller runs it).
func CreateMCMDeployment(ctx context.Context, client dynamic.Interface, namespace string, available int) error {
	d := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": mcm.DeploymentName, "namespace": namespace},
		"spec": map[string]any{
			"replicas": int64(1),
			"selector": map[string]any{"matchLabels": map[string]any{"app": "machine-controller-manager"}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": "machine-controller-manager"}},
				"spec":     map[string]any{"containers": []any{map[string]any{"name": "mcm", "image": "mcm"}}},
			},
		},
	}}
	api := client.Resource(mcm.Deployments).Namespace(namespace)
	created, err := api.Create(ctx, d, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("creating the MCM Deployment: %w", err)
	}
	return SetMCMAvailable(ctx, client, created, available)
}

// SetMCMAvailable writes the Deployment's available replicas.
func SetMCMAvailable(ctx context.Context, client dynamic.Interface, d *unstructured.Unstructured, available int) error {
	_ = unstructured.SetNestedField(d.Object, int64(available), "status", "availableReplicas")
	_ = unstructured.SetNestedField(d.Object, int64(available), "status", "readyReplicas")
	_ = unstructured.SetNestedField(d.Object, int64(1), "status", "replicas")
	if _, err := client.Resource(mcm.Deployments).Namespace(d.GetNamespace()).UpdateStatus(ctx, d, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("writing the MCM Deployment's status: %w", err)
	}
	return nil
}
