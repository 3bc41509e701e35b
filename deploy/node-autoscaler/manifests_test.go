// Package nodeautoscaler_test checks the node-autoscaler manifests against
// a real API server: every object of the kustomization is accepted, the
// cloud config in the ConfigMap parses, and the RBAC denies what the
// command never needs. That the RBAC suffices is shown by the end-to-end
// test in internal/cli, which runs the command under this ServiceAccount.
package nodeautoscaler_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kscale/kscale/internal/cloudprovider/kwok"
	"github.com/kscale/kscale/internal/manifesttest"
	"github.com/kscale/kscale/internal/testenv"
)

func TestManifests(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	objs := manifesttest.Load(t, ".")
	configs := 0
	for _, obj := range objs {
		if obj.GetKind() != "ConfigMap" {
			continue
		}
		configs++
		data, _, _ := unstructured.NestedString(obj.Object, "data", "cloud-config.yaml")
		if _, err := kwok.ParseCloudConfig([]byte(data)); err != nil {
			t.Errorf("ConfigMap %s: %v", obj.GetName(), err)
		}
	}
	if configs != 1 {
		t.Errorf("%d ConfigMaps, want the kwok cloud config", configs)
	}
	manifesttest.Create(t, env, objs)
	denied := []manifesttest.Access{
		{Verb: "get", Resource: "secrets", Namespace: "kube-system", Name: "any"},
		{Verb: "update", Resource: "configmaps", Namespace: "kube-system", Name: "cluster-autoscaler-priority-expander"},
		{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Namespace: "kube-system", Name: "kube-scheduler"},
		{Verb: "update", Resource: "pods", Namespace: "default", Name: "web-1"},
		{Verb: "update", Group: "apps", Resource: "deployments", Namespace: "default", Name: "web"},
		{Verb: "create", Resource: "configmaps", Namespace: "default"},
	}
	// The durable state it writes: status, backoff and the kwok cloud's targets.
	allowed := []manifesttest.Access{
		{Verb: "update", Resource: "configmaps", Namespace: "kube-system", Name: "cluster-autoscaler-status"},
		{Verb: "update", Resource: "configmaps", Namespace: "kube-system", Name: "cluster-autoscaler-backoff"},
		{Verb: "update", Resource: "configmaps", Namespace: "kube-system", Name: "kscale-kwok-cloud"},
	}
	manifesttest.ExpectAccess(t, env, "kube-system", "kscale-node-autoscaler", allowed, denied)
}
