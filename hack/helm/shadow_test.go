package chartcheck

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kscale/kscale/internal/manifesttest"
)

// TestShadowMode renders clusterAutoscaler.dryRun with the clusterapi
// provider: the Deployment passes --dry-run, and the ClusterRoles and the
// Role hold exactly the read-only rules of deploy/node-autoscaler-shadow
// (the objects are named as the chart's other node autoscaler RBAC).
func TestShadowMode(t *testing.T) {
	values := map[string]any{"clusterAutoscaler": map[string]any{"dryRun": true, "cloudProvider": "clusterapi"}}
	r, err := Render(chartDir, Release{Name: "kscale", Namespace: "kube-system"}, values)
	if err != nil {
		t.Fatal(err)
	}
	expectArgs(t, args(t, r, "kscale-node-autoscaler"), "--dry-run", "--cloud-provider=clusterapi")
	deploy := manifesttest.Load(t, "../../deploy/node-autoscaler-shadow")
	const mgmt = "../../deploy/node-autoscaler-shadow/rbac-clusterapi-management.yaml"
	data, err := os.ReadFile(mgmt)
	if err != nil {
		t.Fatal(err)
	}
	more, err := decode(mgmt, data)
	if err != nil {
		t.Fatal(err)
	}
	deploy = append(deploy, more...)
	pairs := []struct{ kind, chart, deploy string }{
		{"ClusterRole", "kscale:node-autoscaler", "kscale:node-autoscaler-shadow"},
		{"Role", "kscale:node-autoscaler", "kscale:node-autoscaler-shadow"},
		{"ClusterRole", "kscale:node-autoscaler-clusterapi-management", "kscale:node-autoscaler-shadow-clusterapi-management"},
	}
	for _, p := range pairs {
		c := find(r, p.kind, p.chart)
		d := findIn(deploy, p.kind, p.deploy)
		if c == nil || d == nil {
			t.Errorf("%s: chart %s rendered %v, deploy/ %s found %v", p.kind, p.chart, c != nil, p.deploy, d != nil)
			continue
		}
		if diff := cmp.Diff(d.Object["rules"], c.Object["rules"]); diff != "" {
			t.Errorf("%s %s: rules differ from deploy/ (-deploy +chart):\n%s", p.kind, p.chart, diff)
		}
	}
}

// findIn returns the object of kind and name in objs, or nil.
func findIn(objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	for _, o := range objs {
		if o.GetKind() == kind && o.GetName() == name {
			return o
		}
	}
	return nil
}
