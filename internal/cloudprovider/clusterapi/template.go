package clusterapi

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/machineapi"
)

// Node labels a template takes from a live node of its group.
var liveNodeLabels = []string{
	corev1.LabelArchStable, corev1.LabelOSStable,
	corev1.LabelInstanceTypeStable, corev1.LabelInstanceType,
	corev1.LabelTopologyRegion, corev1.LabelFailureDomainBetaRegion,
}

// infraInfo is what an infrastructure template's status offers.
type infraInfo struct {
	capacity corev1.ResourceList
	arch, os string
	// missing says why nothing was read (no reference, not readable).
	missing string
}

// template describes a group's new nodes. Capacity comes from the
// infrastructure template's status.capacity overridden by the capacity
// annotations; without cpu and memory the template is unavailable and
// says why. live, when set, is a node of the group whose type, zone and
// region labels it copies.
func (p *Provider) template(ctx context.Context, r *scalable, live *corev1.Node, templates *infraTemplates) (cloudprovider.Template, error) {
	t := cloudprovider.Template{Tags: map[string]string{}}
	infra := p.infraInfo(ctx, r, templates)
	fromAnn, err := capacityFromAnnotations(r.annotations)
	if err != nil {
		t.UnavailableReason = err.Error()
		return t, nil
	}
	capacity := infra.capacity.DeepCopy()
	if capacity == nil {
		capacity = corev1.ResourceList{}
	}
	for k, v := range fromAnn {
		_, fromInfra := capacity[k]
		if _, set := r.annotations[annotationOf(k)]; set || !fromInfra {
			capacity[k] = v
		}
	}
	if err := p.templateLabels(&t, r, infra, live); err != nil {
		t.UnavailableReason = err.Error()
		return t, nil
	}
	if t.Taints, err = templateTaints(r); err != nil {
		t.UnavailableReason = err.Error()
		return t, nil
	}
	if t.PricePerHour, err = machineapi.Price(r.annotations, r.obj.GetKind()+" "+r.obj.GetName()); err != nil {
		t.UnavailableReason = err.Error()
		return t, nil
	}
	if fd, _, _ := unstructured.NestedString(r.obj.Object, "spec", "template", "spec", "failureDomain"); fd != "" {
		t.Zones = []string{fd}
	}
	name := ""
	if live != nil {
		name = live.Labels[corev1.LabelInstanceTypeStable]
		if z := live.Labels[corev1.LabelTopologyZone]; z != "" {
			t.Zones = []string{z}
		}
		t.Region = live.Labels[corev1.LabelTopologyRegion]
	}
	_, hasCPU := capacity[corev1.ResourceCPU]
	_, hasMem := capacity[corev1.ResourceMemory]
	if !hasCPU || !hasMem {
		t.UnavailableReason = fmt.Sprintf("cannot scale from zero: neither the annotations %s and %s nor the infrastructure template's status.capacity (%s) give cpu and memory",
			CPUAnnotation, MemoryAnnotation, infra.missing)
		return t, nil
	}
	t.InstanceTypes = []cloudprovider.InstanceType{{Name: name, Capacity: capacity}}
	return t, nil
}

// annotationOf maps a capacity resource back to its annotation, so an
// annotation wins over the infrastructure status; pods' default of 110
// does not.
func annotationOf(r corev1.ResourceName) string {
	switch r {
	case corev1.ResourceCPU:
		return CPUAnnotation
	case corev1.ResourceMemory:
		return MemoryAnnotation
	case corev1.ResourceEphemeralStorage:
		return DiskAnnotation
	case corev1.ResourcePods:
		return MaxPodsAnnotation
	}
	return GPUTypeAnnotation
}

// templateLabels sets the label tags, later ones winning: the default
// architecture and linux, the infrastructure's node info, the managed
// labels of the Machine template, the labels annotation, then the
// architecture, OS, instance type and region of a live node.
func (p *Provider) templateLabels(t *cloudprovider.Template, r *scalable, infra infraInfo, live *corev1.Node) error {
	set := func(k, v string) { t.Tags[cloudprovider.TagLabelPrefix+k] = v }
	set(corev1.LabelArchStable, p.cfg.DefaultArch)
	set(corev1.LabelOSStable, "linux")
	if infra.arch != "" {
		set(corev1.LabelArchStable, infra.arch)
	}
	if infra.os != "" {
		set(corev1.LabelOSStable, infra.os)
	}
	tl, _, _ := unstructured.NestedStringMap(r.obj.Object, "spec", "template", "metadata", "labels")
	for k, v := range tl {
		if managedLabel(k) {
			set(k, v)
		}
	}
	ann, err := ParseLabels(r.annotations[LabelsAnnotation])
	if err != nil {
		return fmt.Errorf("annotation %s: %w", LabelsAnnotation, err)
	}
	for k, v := range ann {
		set(k, v)
	}
	if live != nil {
		for _, k := range liveNodeLabels {
			if v, ok := live.Labels[k]; ok {
				set(k, v)
			}
		}
	}
	return nil
}

// templateTaints merges the Machine template's spec.taints (v1beta2) with
// the taints annotation; the annotation wins for the same key and effect.
func templateTaints(r *scalable) ([]corev1.Taint, error) {
	ann, err := ParseTaints(r.annotations[TaintsAnnotation])
	if err != nil {
		return nil, fmt.Errorf("annotation %s: %w", TaintsAnnotation, err)
	}
	raw, _, _ := unstructured.NestedSlice(r.obj.Object, "spec", "template", "spec", "taints")
	tmpl, err := machineapi.Taints(raw, r.id()+": spec.template.spec.taints")
	if err != nil {
		return nil, err
	}
	var out []corev1.Taint
	for _, t := range tmpl {
		if !machineapi.ContainsTaint(ann, t) {
			out = append(out, t)
		}
	}
	return append(out, ann...), nil
}

// infraInfo reads the infrastructure template's status.capacity and
// status.nodeInfo. A missing or unreadable template is no error (the
// annotations may suffice); missing says why.
func (p *Provider) infraInfo(ctx context.Context, r *scalable, infra *infraTemplates) infraInfo {
	ref, _, _ := unstructured.NestedStringMap(r.obj.Object, "spec", "template", "spec", "infrastructureRef")
	kind, name := ref["kind"], ref["name"]
	if kind == "" || name == "" {
		return infraInfo{missing: "no spec.template.spec.infrastructureRef"}
	}
	what := kind + " " + r.namespace + "/" + name
	gvr, err := p.infra.resource(ref["apiGroup"], ref["apiVersion"], kind)
	if err != nil {
		return infraInfo{missing: what + ": " + err.Error()}
	}
	obj, err := infra.get(ctx, gvr, r.namespace, name)
	if err != nil {
		logr.FromContextOrDiscard(ctx).V(2).Info("Cannot read infrastructure template", "group", r.id(), "template", what, "err", err.Error())
		return infraInfo{missing: what + ": " + err.Error()}
	}
	info := infraInfo{capacity: corev1.ResourceList{}, missing: what + " has no status.capacity"}
	caps, _, _ := unstructured.NestedStringMap(obj.Object, "status", "capacity")
	for k, v := range caps {
		q, err := resource.ParseQuantity(v)
		if err != nil {
			return infraInfo{missing: fmt.Sprintf("%s: status.capacity[%s]: %q is not a quantity", what, k, v)}
		}
		info.capacity[corev1.ResourceName(k)] = q
	}
	if len(caps) > 0 {
		info.missing = what + " has no cpu or memory in status.capacity"
	}
	info.arch, _, _ = unstructured.NestedString(obj.Object, "status", "nodeInfo", "architecture")
	info.os, _, _ = unstructured.NestedString(obj.Object, "status", "nodeInfo", "operatingSystem")
	return info
}
