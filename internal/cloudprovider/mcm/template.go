package mcm

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/machineapi"
)

// defaultMaxPods is the pods capacity when the node template has none.
const defaultMaxPods = 110

// template describes the group's new nodes: capacity, instance type,
// region, zone and architecture from the MachineClass's nodeTemplate;
// labels and taints from the MachineDeployment's node template. Without
// a usable nodeTemplate it says why, and the group grows only from a
// template copied off one of its live nodes.
func (p *Provider) template(md *unstructured.Unstructured, classes map[string]*unstructured.Unstructured) cloudprovider.Template {
	t := cloudprovider.Template{Tags: map[string]string{}}
	labels, _, _ := unstructured.NestedStringMap(md.Object, "spec", "template", "spec", "nodeTemplate", "metadata", "labels")
	for k, v := range labels {
		t.Tags[cloudprovider.TagLabelPrefix+k] = v
	}
	raw, _, _ := unstructured.NestedSlice(md.Object, "spec", "template", "spec", "nodeTemplate", "spec", "taints")
	taints, err := machineapi.Taints(raw, "spec.template.spec.nodeTemplate.spec.taints")
	if err != nil {
		t.UnavailableReason = fmt.Sprintf("MachineDeployment %s: %v", md.GetName(), err)
		return t
	}
	t.Taints = taints
	it, zone, region, err := nodeTemplate(md, classes)
	if err != nil {
		t.UnavailableReason = err.Error()
		return t
	}
	t.InstanceTypes = []cloudprovider.InstanceType{it}
	t.Zones, t.Region = []string{zone}, region
	if t.PricePerHour, err = groupPrice(md, classes); err != nil {
		t.InstanceTypes, t.UnavailableReason = nil, err.Error()
	}
	return t
}

// nodeTemplate reads the nodeTemplate of the MachineDeployment's
// MachineClass into an instance type with its zone and region.
func nodeTemplate(md *unstructured.Unstructured, classes map[string]*unstructured.Unstructured) (cloudprovider.InstanceType, string, string, error) {
	ref, _, _ := unstructured.NestedStringMap(md.Object, "spec", "template", "spec", "class")
	if ref["kind"] != "MachineClass" || ref["name"] == "" {
		return cloudprovider.InstanceType{}, "", "", fmt.Errorf("MachineDeployment %s: spec.template.spec.class %v is not a MachineClass", md.GetName(), ref)
	}
	class, ok := classes[ref["name"]]
	if !ok {
		return cloudprovider.InstanceType{}, "", "", fmt.Errorf("MachineClass %s/%s of MachineDeployment %s not found", md.GetNamespace(), ref["name"], md.GetName())
	}
	nt, found, _ := unstructured.NestedMap(class.Object, "nodeTemplate")
	if !found {
		return cloudprovider.InstanceType{}, "", "", fmt.Errorf("cannot scale from zero: MachineClass %s has no nodeTemplate", class.GetName())
	}
	str := func(k string) string { s, _ := nt[k].(string); return s }
	what := "MachineClass " + class.GetName() + " nodeTemplate"
	for _, k := range []string{"instanceType", "region", "zone"} {
		if str(k) == "" {
			return cloudprovider.InstanceType{}, "", "", fmt.Errorf("%s: %s is empty", what, k)
		}
	}
	capacity, err := templateCapacity(nt, what)
	if err != nil {
		return cloudprovider.InstanceType{}, "", "", err
	}
	return cloudprovider.InstanceType{Name: str("instanceType"), Capacity: capacity, Architecture: str("architecture")}, str("zone"), str("region"), nil
}

// templateCapacity reads nodeTemplate.capacity: cpu and memory are
// required; MCM's "gpu" is nvidia.com/gpu (left out when zero); pods
// default to 110; every other key is an extended resource.
func templateCapacity(nt map[string]any, what string) (corev1.ResourceList, error) {
	raw, ok := nt["capacity"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: capacity is missing", what)
	}
	out := corev1.ResourceList{corev1.ResourcePods: *resource.NewQuantity(defaultMaxPods, resource.DecimalSI)}
	for k, v := range raw {
		q, err := quantity(v)
		if err != nil || q.Sign() < 0 {
			return nil, fmt.Errorf("%s: capacity[%s]: %v is not a non-negative quantity", what, k, v)
		}
		name := corev1.ResourceName(k)
		if k == "gpu" {
			name = "nvidia.com/gpu"
		}
		if q.IsZero() && name == "nvidia.com/gpu" {
			continue
		}
		out[name] = q
	}
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		if _, ok := out[r]; !ok {
			return nil, fmt.Errorf("%s: capacity has no %s", what, r)
		}
	}
	return out, nil
}

// quantity reads a quantity that JSON decoding left as a string or a
// number.
func quantity(v any) (resource.Quantity, error) {
	switch x := v.(type) {
	case string:
		return resource.ParseQuantity(x)
	case int64:
		return *resource.NewQuantity(x, resource.DecimalSI), nil
	case float64:
		return resource.ParseQuantity(fmt.Sprint(x))
	}
	return resource.Quantity{}, fmt.Errorf("unexpected type %T", v)
}

// groupPrice reads the price annotation of the MachineDeployment, else of
// its MachineClass.
func groupPrice(md *unstructured.Unstructured, classes map[string]*unstructured.Unstructured) (float64, error) {
	if _, ok := md.GetAnnotations()[machineapi.PriceAnnotation]; ok {
		return machineapi.Price(md.GetAnnotations(), "MachineDeployment "+md.GetName())
	}
	name, _, _ := unstructured.NestedString(md.Object, "spec", "template", "spec", "class", "name")
	if class := classes[name]; class != nil {
		return machineapi.Price(class.GetAnnotations(), "MachineClass "+class.GetName())
	}
	return 0, nil
}
