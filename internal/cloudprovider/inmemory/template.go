package inmemory

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kscale/kscale/internal/cloudprovider"
)

// TemplateSpec is what a YAML entry says about a group's new instances.
type TemplateSpec struct {
	// Group is the group id, for error messages.
	Group string
	// InstanceTypes names catalog types (LookupInstanceType).
	InstanceTypes []string
	// Resources, when set, is one inline instance type's capacity; pods
	// default to DefaultMaxPods.
	Resources corev1.ResourceList
	// Zone is the group's zone.
	Zone string
	// Labels and Taints become tags of the cluster-autoscaler convention.
	Labels map[string]string
	// Taints are the template's taints.
	Taints []corev1.Taint
}

// TemplateOf builds a provider template from an entry's fields: catalog
// types or one inline type, the zone, and labels and taints as tags.
func TemplateOf(s TemplateSpec) (cloudprovider.Template, error) {
	t := cloudprovider.Template{Tags: map[string]string{}}
	for _, name := range s.InstanceTypes {
		it, err := LookupInstanceType(name)
		if err != nil {
			return t, fmt.Errorf("node group %q: %w", s.Group, err)
		}
		t.InstanceTypes = append(t.InstanceTypes, it)
	}
	if len(s.Resources) > 0 {
		capacity := s.Resources.DeepCopy()
		if _, ok := capacity[corev1.ResourcePods]; !ok {
			capacity[corev1.ResourcePods] = resource.MustParse(DefaultMaxPods)
		}
		t.InstanceTypes = append(t.InstanceTypes, cloudprovider.InstanceType{Name: InlineTypeName(capacity), Capacity: capacity})
	}
	if s.Zone != "" {
		t.Zones = []string{s.Zone}
	}
	for k, v := range s.Labels {
		t.Tags[cloudprovider.TagLabelPrefix+k] = v
	}
	for _, taint := range s.Taints {
		t.Tags[cloudprovider.TagTaintPrefix+taint.Key] = taint.Value + ":" + string(taint.Effect)
	}
	return t, nil
}

// InlineTypeName names an inline instance type by its resources, so a
// changed size is a different type whose allocatable is not taken from live
// nodes of the old size, and two groups that differ only in GPUs or other
// extended resources (or a pod count other than the default) do not share
// a name. The name is a valid label value: resource names have "/" turned
// into "_", and a name longer than a label value allows ends in a hash of
// the full name instead of the extra resources.
func InlineTypeName(capacity corev1.ResourceList) string {
	base := fmt.Sprintf("custom-%dm-%dMi", capacity.Cpu().MilliValue(), capacity.Memory().Value()>>20)
	defaultPods := resource.MustParse(DefaultMaxPods)
	extras := make([]string, 0, len(capacity))
	for r, q := range capacity {
		if r == corev1.ResourceCPU || r == corev1.ResourceMemory || (r == corev1.ResourcePods && q.Cmp(defaultPods) == 0) {
			continue
		}
		extras = append(extras, strings.ReplaceAll(string(r), "/", "_")+"-"+q.String())
	}
	if len(extras) == 0 {
		return base
	}
	slices.Sort(extras)
	name := base + "-" + strings.Join(extras, "-")
	if len(name) <= validation.LabelValueMaxLength {
		return name
	}
	h := fnv.New32a()
	h.Write([]byte(name))
	return fmt.Sprintf("%s-x%08x", base, h.Sum32())
}
