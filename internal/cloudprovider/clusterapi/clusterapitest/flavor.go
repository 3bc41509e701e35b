package clusterapitest

import (
	"maps"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kscale/kscale/internal/cloudprovider/clusterapi"
	"github.com/kscale/kscale/internal/testenv/machinesim"
)

// GroupVersion is the Cluster API version the tests write.
var GroupVersion = schema.GroupVersion{Group: clusterapi.DefaultGroup, Version: "v1beta2"}

// Resources of the Cluster API objects.
var (
	MachineDeployments = GroupVersion.WithResource("machinedeployments")
	MachineSets        = GroupVersion.WithResource("machinesets")
	Machines           = GroupVersion.WithResource("machines")
	MachinePools       = GroupVersion.WithResource("machinepools")
	InfraTemplates     = schema.GroupVersionResource{Group: InfraGroup, Version: "v1beta1", Resource: InfraResource}
)

// Flavor is Cluster API for machinesim: MachineDeployment ->
// MachineSet -> Machine, the delete-machine annotation first in the
// deletion order, v1beta1-style failures in status.deprecated.v1beta1.
type Flavor struct{}

var names = clusterapi.NamesFor(clusterapi.DefaultGroup)

var _ machinesim.Flavor = Flavor{}

// Resources returns the MachineDeployment, MachineSet and Machine resources.
func (Flavor) Resources() (deployments, sets, machines schema.GroupVersionResource) {
	return MachineDeployments, MachineSets, Machines
}

// NewSet returns the MachineSet of revision 1 of a MachineDeployment.
func (Flavor) NewSet(d *unstructured.Unstructured) *unstructured.Unstructured {
	spec, _, _ := unstructured.NestedMap(d.Object, "spec")
	delete(spec, "strategy")
	set := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	set.SetAPIVersion(GroupVersion.String())
	set.SetKind("MachineSet")
	labels := map[string]string{names.DeploymentName: d.GetName()}
	if c, _, _ := unstructured.NestedString(spec, "clusterName"); c != "" {
		labels[names.ClusterName] = c
	}
	set.SetLabels(labels)
	set.SetAnnotations(map[string]string{clusterapi.RevisionAnnotation: "1"})
	return set
}

// NewMachine returns a Machine of a MachineSet: the template's labels
// and spec, the set's and deployment's name labels.
func (Flavor) NewMachine(set *unstructured.Unstructured) *unstructured.Unstructured {
	spec, _, _ := unstructured.NestedMap(set.Object, "spec", "template", "spec")
	labels, _, _ := unstructured.NestedStringMap(set.Object, "spec", "template", "metadata", "labels")
	if labels == nil {
		labels = map[string]string{}
	}
	maps.Copy(labels, set.GetLabels())
	labels[names.ClusterName] = spec["clusterName"].(string)
	m := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	m.SetAPIVersion(GroupVersion.String())
	m.SetKind("Machine")
	m.SetLabels(labels)
	return m
}

// Deployment reads the deployment-name label.
func (Flavor) Deployment(m *unstructured.Unstructured) string {
	return m.GetLabels()[names.DeploymentName]
}

// ProviderID reads spec.providerID.
func (Flavor) ProviderID(m *unstructured.Unstructured) string {
	id, _, _ := unstructured.NestedString(m.Object, "spec", "providerID")
	return id
}

// SetProviderID writes spec.providerID.
func (Flavor) SetProviderID(m *unstructured.Unstructured, id string) {
	_ = unstructured.SetNestedField(m.Object, id, "spec", "providerID")
}

// Failed reports phase Failed, or an InfrastructureReady condition that
// is False (the stand-in writes it only for failures).
func (Flavor) Failed(m *unstructured.Unstructured) bool {
	p, _, _ := unstructured.NestedString(m.Object, "status", "phase")
	if p == "Failed" {
		return true
	}
	conds, _, _ := unstructured.NestedSlice(m.Object, "status", "conditions")
	for _, c := range conds {
		if c, ok := c.(map[string]any); ok && c["type"] == "InfrastructureReady" && c["status"] == "False" {
			return true
		}
	}
	return false
}

// MarkFailed writes a failure: with f.Conditions as Cluster API v1.11+
// does (phase Provisioning, InfrastructureReady False with the reason
// and message mirrored from the infrastructure machine), else as v1beta1
// did (phase Failed, failure reason and message where v1beta2 keeps them).
func (Flavor) MarkFailed(m *unstructured.Unstructured, f machinesim.Failure) {
	if f.Conditions {
		_ = unstructured.SetNestedField(m.Object, "Provisioning", "status", "phase")
		_ = unstructured.SetNestedSlice(m.Object, []any{map[string]any{"type": "InfrastructureReady", "status": "False",
			"reason": f.Reason, "message": f.Message, "lastTransitionTime": time.Now().UTC().Format(time.RFC3339)}}, "status", "conditions")
		return
	}
	_ = unstructured.SetNestedField(m.Object, "Failed", "status", "phase")
	_ = unstructured.SetNestedField(m.Object, f.Reason, "status", "deprecated", "v1beta1", "failureReason")
	_ = unstructured.SetNestedField(m.Object, f.Message, "status", "deprecated", "v1beta1", "failureMessage")
}

// MarkRunning sets status.nodeRef and phase Running.
func (Flavor) MarkRunning(m *unstructured.Unstructured, node string) {
	_ = unstructured.SetNestedField(m.Object, node, "status", "nodeRef", "name")
	_ = unstructured.SetNestedField(m.Object, "Running", "status", "phase")
}

// NodeMeta returns the annotations Cluster API's Machine controller puts
// on a node and the managed labels it propagates.
func (Flavor) NodeMeta(m *unstructured.Unstructured) (map[string]string, map[string]string) {
	labels := map[string]string{}
	for k, v := range m.GetLabels() {
		if d, _, ok := strings.Cut(k, "/"); ok && (d == "node-role.kubernetes.io" || strings.HasSuffix(d, "node.cluster.x-k8s.io")) {
			labels[k] = v
		}
	}
	owner := ""
	if refs := m.GetOwnerReferences(); len(refs) > 0 {
		owner = refs[0].Name
	}
	return labels, map[string]string{
		names.Machine: m.GetName(), names.ClusterNamespace: m.GetNamespace(),
		names.ClusterName:                       m.GetLabels()[names.ClusterName],
		clusterapi.DefaultGroup + "/owner-kind": "MachineSet", clusterapi.DefaultGroup + "/owner-name": owner,
	}
}

// DeletePriority follows Cluster API's deletion order: the delete-machine
// annotation (80) before unhealthy, here failed, machines (50).
func (Flavor) DeletePriority(m *unstructured.Unstructured) int {
	if _, ok := m.GetAnnotations()[names.DeleteMachine]; ok {
		return 80
	}
	if (Flavor{}).Failed(m) {
		return 50
	}
	return 0
}
