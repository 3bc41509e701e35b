package chartcheck

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kscale/kscale/internal/manifesttest"
)

const chartDir = "../../charts/kscale"

// driftCases pair a values file with the kustomize bases under deploy/
// that together hold what the chart renders with it, whether the release
// installs the chart's CRDs (the VPA's; a release without the VPA uses
// --skip-crds), and the fewest objects the comparison must cover (so a
// rendering that loses a component fails).
var driftCases = []struct {
	values         string
	kustomizations []string
	skipCRDs       bool
	minObjects     int
}{
	{"kustomize.yaml", []string{"../../deploy/node-autoscaler-monitoring", "../../deploy/vpa", "../../deploy/custom-metrics"}, false, 40},
	{"kustomize-aws.yaml", []string{"../../deploy/node-autoscaler-aws"}, true, 8},
	{"kustomize-clusterapi.yaml", []string{"../../deploy/node-autoscaler-clusterapi"}, true, 10},
	{"kustomize-externalgrpc.yaml", []string{"../../deploy/node-autoscaler-externalgrpc"}, true, 8},
}

// TestChartMatchesKustomize renders the chart as each set of kustomize
// bases is set up (namespace kube-system, the case's values file) and
// requires the same objects with the same content: RBAC rules and
// bindings, ServiceAccounts, Deployments (all but the image), Services,
// PDBs, ConfigMaps, APIServices, monitoring objects and CRDs. The chart
// may add labels; the bases' labels must be among them. So the two never
// drift, for the kwok base and for each cloud provider's.
func TestChartMatchesKustomize(t *testing.T) {
	for _, tc := range driftCases {
		t.Run(tc.values, func(t *testing.T) {
			r, err := Render(chartDir, Release{Name: "kscale", Namespace: "kube-system"}, readValues(t, "testdata/values/"+tc.values))
			if err != nil {
				t.Fatal(err)
			}
			objs := r.Objects
			if !tc.skipCRDs {
				objs = append(r.CRDs, objs...)
			}
			chart := index(t, "chart", objs)
			var base []*unstructured.Unstructured
			for _, k := range tc.kustomizations {
				base = append(base, manifesttest.Load(t, k)...)
			}
			compareObjects(t, chart, index(t, "deploy", base))
			if len(chart) < tc.minObjects {
				t.Errorf("only %d objects compared, want at least %d; the rendering lost components", len(chart), tc.minObjects)
			}
		})
	}
}

// compareObjects requires chart and kustomize to hold the same keys with
// equal comparable content, and the kustomize labels among the chart's.
func compareObjects(t *testing.T, chart, kustomize map[string]*unstructured.Unstructured) {
	t.Helper()
	for _, key := range slices.Sorted(maps.Keys(kustomize)) {
		c, ok := chart[key]
		if !ok {
			t.Errorf("%s: in deploy/, not rendered by the chart", key)
			continue
		}
		want, got := comparable(kustomize[key]), comparable(c)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: chart differs from deploy/ (-deploy +chart):\n%s", key, diff)
		}
		labels := c.GetLabels()
		for k, v := range kustomize[key].GetLabels() {
			if labels[k] != v {
				t.Errorf("%s: chart lacks the label %s=%s of deploy/", key, k, v)
			}
		}
	}
	for _, key := range slices.Sorted(maps.Keys(chart)) {
		if _, ok := kustomize[key]; !ok {
			t.Errorf("%s: rendered by the chart, missing from deploy/", key)
		}
	}
}

// index keys objects by kind, namespace and name; a key seen twice fails.
func index(t *testing.T, what string, objs []*unstructured.Unstructured) map[string]*unstructured.Unstructured {
	t.Helper()
	out := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		key := fmt.Sprintf("%s %s/%s", o.GetKind(), o.GetNamespace(), o.GetName())
		if _, dup := out[key]; dup {
			t.Errorf("%s: %s twice", what, key)
		}
		out[key] = o
	}
	return out
}

// comparable is an object without its labels (compared as a subset) and
// without container images (a placeholder in deploy/, the chart's
// appVersion in the chart).
func comparable(o *unstructured.Unstructured) map[string]any {
	c := o.DeepCopy()
	unstructured.RemoveNestedField(c.Object, "metadata", "labels")
	if c.GetKind() == "Deployment" {
		containers, _, _ := unstructured.NestedSlice(c.Object, "spec", "template", "spec", "containers")
		for _, ct := range containers {
			delete(ct.(map[string]any), "image")
			delete(ct.(map[string]any), "imagePullPolicy")
		}
		_ = unstructured.SetNestedSlice(c.Object, containers, "spec", "template", "spec", "containers")
	}
	return c.Object
}

func readValues(t *testing.T, path string) map[string]any {
	t.Helper()
	v, err := ReadValues(path)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// args returns the container args of the Deployment name.
func args(t *testing.T, r *Rendered, name string) []string {
	t.Helper()
	for _, o := range r.Objects {
		if o.GetKind() == "Deployment" && o.GetName() == name {
			containers, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
			var out []string
			for _, a := range containers[0].(map[string]any)["args"].([]any) {
				out = append(out, a.(string))
			}
			return out
		}
	}
	t.Fatalf("no Deployment %s rendered", name)
	return nil
}

// hasArg reports whether args hold want.
func hasArg(args []string, want string) bool {
	return slices.ContainsFunc(args, func(a string) bool { return a == want || strings.HasPrefix(want, "~") && strings.Contains(a, want[1:]) })
}
