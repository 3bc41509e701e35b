// Package nodeautoscalermcm_test checks the mcm overlay against a real API
// server with the real MCM CRDs: every object is accepted and the RBAC of
// both clusters denies what the provider never needs. That the RBAC
// suffices is shown by the MCM end-to-end test in test/e2e, which
// runs the command under these ServiceAccounts.
package nodeautoscalermcm_test

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kscale/kscale/internal/cloudprovider/mcm/mcmtest"
	"github.com/kscale/kscale/internal/manifesttest"
	"github.com/kscale/kscale/internal/testenv"
)

// Namespace is the overlay's example control namespace.
const Namespace = "shoot--garden--example"

func TestManifests(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	if err := mcmtest.Install(t.Context(), env); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Client.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	control := manifesttest.Load(t, ".")
	for _, obj := range control {
		if obj.GetKind() != "Deployment" {
			continue
		}
		containers, _, _ := unstructured.NestedSlice(obj.Object, "spec", "template", "spec", "containers")
		c := containers[0].(map[string]any)
		cmd, _, _ := unstructured.NestedStringSlice(c, "command")
		if len(cmd) == 0 || cmd[0] != "/cluster-autoscaler" || !slices.Contains(cmd, "--cloud-provider=mcm") ||
			!slices.ContainsFunc(cmd, func(a string) bool { return strings.HasPrefix(a, "--nodes=1:3:"+Namespace+".") }) {
			t.Errorf("Deployment command %v: want Gardener's /cluster-autoscaler line with --cloud-provider=mcm and --nodes", cmd)
		}
	}
	manifesttest.Create(t, env, append(control, manifesttest.Load(t, "target")...))
	const m = "machine.sapcloud.io"
	allowedControl := []manifesttest.Access{
		{Verb: "list", Group: m, Resource: "machinedeployments", Namespace: Namespace},
		{Verb: "get", Group: m, Resource: "machinedeployments", Namespace: Namespace, Name: "md"},
		{Verb: "patch", Group: m, Resource: "machinedeployments", Namespace: Namespace, Name: "md"},
		{Verb: "list", Group: m, Resource: "machines", Namespace: Namespace},
		{Verb: "patch", Group: m, Resource: "machines", Namespace: Namespace, Name: "m"},
		{Verb: "list", Group: m, Resource: "machineclasses", Namespace: Namespace},
		{Verb: "get", Group: "apps", Resource: "deployments", Namespace: Namespace, Name: "machine-controller-manager"},
	}
	deniedControl := []manifesttest.Access{
		{Verb: "list", Group: m, Resource: "machinedeployments", Namespace: "shoot--other--cluster"},
		{Verb: "patch", Group: m, Resource: "machinedeployments", Subresource: "scale", Namespace: Namespace, Name: "md"},
		{Verb: "delete", Group: m, Resource: "machinedeployments", Namespace: Namespace, Name: "md"},
		{Verb: "delete", Group: m, Resource: "machines", Namespace: Namespace, Name: "m"},
		{Verb: "create", Group: m, Resource: "machines", Namespace: Namespace},
		{Verb: "patch", Group: m, Resource: "machineclasses", Namespace: Namespace, Name: "c"},
		{Verb: "get", Group: "apps", Resource: "deployments", Namespace: Namespace, Name: "kube-apiserver"},
		{Verb: "get", Resource: "secrets", Namespace: Namespace, Name: "cloudprovider"},
		{Verb: "list", Resource: "nodes"},
	}
	manifesttest.ExpectAccess(t, env, Namespace, "kscale-node-autoscaler", allowedControl, deniedControl)
	allowedTarget := []manifesttest.Access{
		{Verb: "list", Resource: "nodes"},
		{Verb: "update", Resource: "nodes", Name: "n"},
		{Verb: "list", Group: "storage.k8s.io", Resource: "csinodes"},
		{Verb: "create", Resource: "pods", Subresource: "eviction", Namespace: "default", Name: "p"},
		{Verb: "update", Resource: "configmaps", Namespace: "kube-system", Name: "cluster-autoscaler-status"},
		{Verb: "get", Group: "coordination.k8s.io", Resource: "leases", Namespace: "kube-system", Name: "cluster-autoscaler"},
	}
	deniedTarget := []manifesttest.Access{
		{Verb: "list", Group: m, Resource: "machinedeployments", Namespace: Namespace},
		{Verb: "create", Resource: "nodes"},
		{Verb: "patch", Resource: "nodes", Name: "n"},
		{Verb: "delete", Resource: "nodes", Name: "n"},
		{Verb: "delete", Resource: "pods", Namespace: "default", Name: "p"},
		{Verb: "get", Resource: "secrets", Namespace: "kube-system", Name: "s"},
	}
	manifesttest.ExpectAccess(t, env, "kube-system", "kscale-node-autoscaler", allowedTarget, deniedTarget)
}
