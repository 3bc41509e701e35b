// Package nodeautoscalerclusterapi_test checks the clusterapi overlay
// against a real API server with the real Cluster API CRDs: every object
// is accepted and the RBAC denies what the provider never needs. That the
// RBAC suffices is shown by the Cluster API end-to-end test in
// test/e2e, which runs the command under this ServiceAccount.
package nodeautoscalerclusterapi_test

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kscale/kscale/internal/cloudprovider/clusterapi/clusterapitest"
	"github.com/kscale/kscale/internal/manifesttest"
	"github.com/kscale/kscale/internal/testenv"
)

func TestManifests(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	if err := clusterapitest.Install(t.Context(), env); err != nil {
		t.Fatal(err)
	}
	objs := manifesttest.Load(t, ".")
	for _, obj := range objs {
		if obj.GetKind() != "Deployment" {
			continue
		}
		containers, _, _ := unstructured.NestedSlice(obj.Object, "spec", "template", "spec", "containers")
		args, _, _ := unstructured.NestedStringSlice(containers[0].(map[string]any), "args")
		if !slices.Contains(args, "--cloud-provider=clusterapi") || slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--cloud-config") }) {
			t.Errorf("Deployment args %v: want --cloud-provider=clusterapi and no --cloud-config (joined cluster)", args)
		}
	}
	manifesttest.Create(t, env, objs)
	const capi = "cluster.x-k8s.io"
	allowed := []manifesttest.Access{
		{Verb: "list", Group: capi, Resource: "machinedeployments", Namespace: "default"},
		{Verb: "list", Group: capi, Resource: "machinesets", Namespace: "default"},
		{Verb: "list", Group: capi, Resource: "machinepools", Namespace: "default"},
		{Verb: "list", Group: capi, Resource: "machines", Namespace: "default"},
		{Verb: "get", Group: capi, Resource: "machinedeployments", Subresource: "scale", Namespace: "default", Name: "md"},
		{Verb: "patch", Group: capi, Resource: "machinesets", Subresource: "scale", Namespace: "default", Name: "ms"},
		{Verb: "patch", Group: capi, Resource: "machinepools", Subresource: "scale", Namespace: "default", Name: "mp"},
		{Verb: "patch", Group: capi, Resource: "machines", Namespace: "default", Name: "m"},
		{Verb: "list", Group: "infrastructure.cluster.x-k8s.io", Resource: "awsmachinetemplates", Namespace: "default"},
		{Verb: "update", Resource: "nodes", Name: "n"},
		{Verb: "create", Resource: "pods", Subresource: "eviction", Namespace: "default", Name: "p"},
		{Verb: "update", Resource: "configmaps", Namespace: "kube-system", Name: "cluster-autoscaler-status"},
	}
	denied := []manifesttest.Access{
		{Verb: "delete", Group: capi, Resource: "machines", Namespace: "default", Name: "m"},
		{Verb: "update", Group: capi, Resource: "machinedeployments", Namespace: "default", Name: "md"},
		{Verb: "patch", Group: capi, Resource: "machinedeployments", Namespace: "default", Name: "md"},
		{Verb: "create", Group: capi, Resource: "machines", Namespace: "default"},
		{Verb: "get", Group: capi, Resource: "clusters", Namespace: "default", Name: "c"},
		{Verb: "patch", Group: "infrastructure.cluster.x-k8s.io", Resource: "awsmachinetemplates", Namespace: "default", Name: "t"},
		{Verb: "get", Resource: "secrets", Namespace: "default", Name: "kubeconfig"},
		{Verb: "create", Resource: "nodes"},
		{Verb: "patch", Resource: "nodes", Name: "n"},
		{Verb: "delete", Resource: "nodes", Name: "n"},
		{Verb: "delete", Resource: "pods", Namespace: "default", Name: "p"},
		{Verb: "update", Resource: "configmaps", Namespace: "kube-system", Name: "kscale-kwok-cloud"},
	}
	manifesttest.ExpectAccess(t, env, "kube-system", "kscale-node-autoscaler", allowed, denied)
}
