package clusterapitest

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kscale/kscale/internal/cloudprovider/clusterapi"
)

// Scalable describes a v1beta2 MachineDeployment, MachineSet or
// MachinePool for a test.
type Scalable struct {
	// Kind is MachineDeployment (default), MachineSet or MachinePool.
	Kind string
	// Namespace and Name name the object.
	Namespace, Name string
	// Cluster is spec.clusterName; default "workload".
	Cluster string
	// Replicas is spec.replicas.
	Replicas int
	// Min and Max are the size annotations; Max 0 leaves both out.
	Min, Max int
	// Labels and Annotations are the object's.
	Labels, Annotations map[string]string
	// TemplateLabels are the Machine template's labels.
	TemplateLabels map[string]string
	// Taints are the Machine template's taints.
	Taints []corev1.Taint
	// FailureDomain is the Machine template's failure domain.
	FailureDomain string
	// InfraTemplate names the SimMachineTemplate; default Name.
	InfraTemplate string
	// ProviderIDs is a MachinePool's spec.providerIDList.
	ProviderIDs []string
}

// Object returns the unstructured object.
func (s Scalable) Object() *unstructured.Unstructured {
	if s.Kind == "" {
		s.Kind = "MachineDeployment"
	}
	if s.Cluster == "" {
		s.Cluster = "workload"
	}
	if s.InfraTemplate == "" {
		s.InfraTemplate = s.Name
	}
	tl := map[string]any{"kscale.test/group": s.Name}
	for k, v := range s.TemplateLabels {
		tl[k] = v
	}
	tspec := map[string]any{"clusterName": s.Cluster, "bootstrap": map[string]any{"dataSecretName": "bootstrap-" + s.Name},
		"infrastructureRef": map[string]any{"apiGroup": InfraGroup, "kind": InfraKind, "name": s.InfraTemplate}}
	if s.FailureDomain != "" {
		tspec["failureDomain"] = s.FailureDomain
	}
	if len(s.Taints) > 0 {
		var ts []any
		for _, t := range s.Taints {
			ts = append(ts, map[string]any{"key": t.Key, "value": t.Value, "effect": string(t.Effect), "propagation": "Always"})
		}
		tspec["taints"] = ts
	}
	spec := map[string]any{"clusterName": s.Cluster, "replicas": int64(s.Replicas),
		"template": map[string]any{"metadata": map[string]any{"labels": tl}, "spec": tspec}}
	switch s.Kind {
	case "MachinePool":
		if len(s.ProviderIDs) > 0 {
			ids := make([]any, len(s.ProviderIDs))
			for i, id := range s.ProviderIDs {
				ids[i] = id
			}
			spec["providerIDList"] = ids
		}
	default:
		spec["selector"] = map[string]any{"matchLabels": map[string]any{"kscale.test/group": s.Name}}
	}
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetAPIVersion(GroupVersion.String())
	u.SetKind(s.Kind)
	u.SetNamespace(s.Namespace)
	u.SetName(s.Name)
	u.SetLabels(s.Labels)
	ann := map[string]string{}
	for k, v := range s.Annotations {
		ann[k] = v
	}
	if s.Max > 0 {
		ann[names.MinSize], ann[names.MaxSize] = strconv.Itoa(s.Min), strconv.Itoa(s.Max)
	}
	u.SetAnnotations(ann)
	return u
}

// InfraTemplate returns a SimMachineTemplate; its status (capacity as
// quantities by resource, architecture) must be written through the
// status subresource with SetInfraStatus.
func InfraTemplate(namespace, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"template": map[string]any{}}}}
	u.SetAPIVersion(InfraTemplates.GroupVersion().String())
	u.SetKind(InfraKind)
	u.SetNamespace(namespace)
	u.SetName(name)
	return u
}

// SetInfraStatus writes status.capacity and status.nodeInfo.architecture
// into a SimMachineTemplate object.
func SetInfraStatus(u *unstructured.Unstructured, capacity map[string]string, arch string) {
	c := map[string]any{}
	for k, v := range capacity {
		c[k] = v
	}
	_ = unstructured.SetNestedMap(u.Object, map[string]any{"capacity": c,
		"nodeInfo": map[string]any{"architecture": arch, "operatingSystem": "linux"}}, "status")
}

// CapacityAnnotations returns the cpu and memory capacity annotations.
func CapacityAnnotations(cpu, memory string) map[string]string {
	return map[string]string{clusterapi.CPUAnnotation: cpu, clusterapi.MemoryAnnotation: memory}
}
