// Package nodeautoscaleraws_test checks the AWS node-autoscaler manifests
// against a real API server: every object of the kustomization is
// accepted, the container's flags parse, the ServiceAccount carries the
// IRSA annotation, and the RBAC denies what the AWS provider never needs
// (creating or deleting nodes, writing pod status, node Leases). That the
// RBAC suffices is shown by the AWS end-to-end test in internal/cli, which
// runs the command under this ServiceAccount.
package nodeautoscaleraws_test

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kscale/kscale/internal/cloudprovider/aws"
	"github.com/kscale/kscale/internal/manifesttest"
	"github.com/kscale/kscale/internal/testenv"
)

func TestManifests(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	objs := manifesttest.Load(t, ".")
	var kinds []string
	for _, obj := range objs {
		kinds = append(kinds, obj.GetKind())
		switch obj.GetKind() {
		case "ServiceAccount":
			if !strings.HasPrefix(obj.GetAnnotations()["eks.amazonaws.com/role-arn"], "arn:aws:iam::") {
				t.Errorf("ServiceAccount %s has no IRSA role annotation", obj.GetName())
			}
		case "Deployment":
			checkArgs(t, obj)
		}
	}
	if slices.Contains(kinds, "ConfigMap") {
		t.Errorf("kinds %v: the AWS provider takes no cloud config", kinds)
	}
	manifesttest.Create(t, env, objs)
	allowed, denied := manifesttest.CloudNodeAutoscalerAccess("ip-10-0-0-1", "web-1")
	manifesttest.ExpectAccess(t, env, "kube-system", "kscale-node-autoscaler", allowed, denied)
}

// checkArgs parses the discovery flag of the Deployment's container.
func checkArgs(t *testing.T, obj *unstructured.Unstructured) {
	t.Helper()
	containers, _, _ := unstructured.NestedSlice(obj.Object, "spec", "template", "spec", "containers")
	if len(containers) != 1 {
		t.Fatalf("Deployment %s: %d containers", obj.GetName(), len(containers))
	}
	args, _, _ := unstructured.NestedStringSlice(containers[0].(map[string]any), "args")
	if !slices.Contains(args, "--cloud-provider=aws") {
		t.Errorf("args %v lack --cloud-provider=aws", args)
	}
	found := false
	for _, a := range args {
		if spec, ok := strings.CutPrefix(a, "--node-group-auto-discovery="); ok {
			found = true
			if _, err := aws.ParseDiscovery(spec); err != nil {
				t.Errorf("%s: %v", a, err)
			}
		}
	}
	if !found {
		t.Errorf("args %v lack --node-group-auto-discovery", args)
	}
}
