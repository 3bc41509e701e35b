package inmemory

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
)

// TestInlineTypeNames checks that inline instance types are named from all
// their resources: groups that differ only in GPUs, other extended resources
// or the pod count get different names (so the estimator does not give one
// the other's learnt allocatable), equal resources the same name, and every
// name is a valid label value.
func TestInlineTypeNames(t *testing.T) {
	res := func(pairs ...string) corev1.ResourceList {
		r := corev1.ResourceList{}
		for i := 0; i+1 < len(pairs); i += 2 {
			r[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
		}
		return r
	}
	long := res("cpu", "4", "memory", "16Gi")
	for _, n := range []string{"a", "b", "c", "d"} {
		long[corev1.ResourceName("example.com/a-rather-long-device-name-"+n)] = resource.MustParse("1")
	}
	groups := []struct {
		name string
		res  corev1.ResourceList
	}{
		{"plain", res("cpu", "4", "memory", "16Gi")},
		{"plain with the default pod count", res("cpu", "4", "memory", "16Gi", "pods", "110")},
		{"one GPU", res("cpu", "4", "memory", "16Gi", "nvidia.com/gpu", "1")},
		{"two GPUs", res("cpu", "4", "memory", "16Gi", "nvidia.com/gpu", "2")},
		{"an AMD GPU", res("cpu", "4", "memory", "16Gi", "amd.com/gpu", "1")},
		{"an FPGA", res("cpu", "4", "memory", "16Gi", "example.com/fpga", "1")},
		{"fewer pods", res("cpu", "4", "memory", "16Gi", "pods", "58")},
		{"long", long},
	}
	seen := map[string]string{}
	for _, g := range groups {
		tmpl, err := TemplateOf(TemplateSpec{Group: g.name, Resources: g.res})
		if err != nil {
			t.Fatalf("%s: %v", g.name, err)
		}
		name := tmpl.InstanceTypes[0].Name
		if errs := validation.IsValidLabelValue(name); len(errs) > 0 {
			t.Errorf("%s: name %q is not a label value: %s", g.name, name, strings.Join(errs, "; "))
		}
		if other, ok := seen[name]; ok && other != "plain" {
			t.Errorf("%s and %s share the name %q", g.name, other, name)
		}
		seen[name] = g.name
	}
	if seen["custom-4000m-16384Mi"] != "plain with the default pod count" {
		t.Errorf("plain groups are named %v, want custom-4000m-16384Mi for both", seen)
	}
}
