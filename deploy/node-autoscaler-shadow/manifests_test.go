// Package nodeautoscalershadow_test checks the shadow (dry-run) RBAC
// against a real API server with the real Cluster API and MCM CRDs: every object
// is accepted, the reads and the own status ConfigMap and Lease are
// allowed, and every write of the live autoscaler is denied. That it
// suffices is shown by the dry-run end-to-end test in test/e2e, which
// runs the command under this ServiceAccount with the audit log on.
package nodeautoscalershadow_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/kscale/kscale/internal/cloudprovider/clusterapi/clusterapitest"
	"github.com/kscale/kscale/internal/cloudprovider/mcm/mcmtest"
	"github.com/kscale/kscale/internal/manifesttest"
	"github.com/kscale/kscale/internal/testenv"
)

func TestManifests(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	for _, install := range []func(context.Context, *testenv.Env) error{clusterapitest.Install, mcmtest.Install} {
		if err := install(t.Context(), env); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := env.Client.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: mcmNamespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	objs := manifesttest.Load(t, ".")
	for _, f := range []string{"rbac-clusterapi-management.yaml", "rbac-mcm-control.yaml"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, decodeDocs(t, data)...)
	}
	// The mcm Role binds the ServiceAccount of the control namespace.
	objs = append(objs, &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ServiceAccount",
		"metadata": map[string]any{"name": account, "namespace": mcmNamespace}}})
	manifesttest.Create(t, env, objs)
	const capi = "cluster.x-k8s.io"
	allowed := []manifesttest.Access{
		{Verb: "list", Resource: "nodes"},
		{Verb: "get", Resource: "pods", Namespace: "default", Name: "p"},
		{Verb: "watch", Resource: "events", Namespace: "default"},
		{Verb: "get", Resource: "configmaps", Namespace: "kube-system", Name: "cluster-autoscaler-status"},
		{Verb: "update", Resource: "configmaps", Namespace: "kube-system", Name: "kscale-shadow-status"},
		{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Namespace: "kube-system", Name: "kscale-shadow"},
		{Verb: "list", Group: capi, Resource: "machinedeployments", Namespace: "default"},
		{Verb: "get", Group: capi, Resource: "machinedeployments", Subresource: "scale", Namespace: "default", Name: "md"},
	}
	denied := []manifesttest.Access{
		{Verb: "update", Resource: "nodes", Name: "n"},
		{Verb: "patch", Resource: "nodes", Name: "n"},
		{Verb: "create", Resource: "pods", Subresource: "eviction", Namespace: "default", Name: "p"},
		{Verb: "delete", Resource: "pods", Namespace: "default", Name: "p"},
		{Verb: "create", Resource: "events", Namespace: "default"},
		{Verb: "update", Resource: "configmaps", Namespace: "kube-system", Name: "cluster-autoscaler-status"},
		{Verb: "update", Resource: "configmaps", Namespace: "kube-system", Name: "cluster-autoscaler-backoff"},
		{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Namespace: "kube-system", Name: "cluster-autoscaler"},
		{Verb: "patch", Group: capi, Resource: "machinedeployments", Subresource: "scale", Namespace: "default", Name: "md"},
		{Verb: "patch", Group: capi, Resource: "machines", Namespace: "default", Name: "m"},
	}
	manifesttest.ExpectAccess(t, env, "kube-system", account, allowed, denied)
	const m = "machine.sapcloud.io"
	manifesttest.ExpectAccess(t, env, mcmNamespace, account, []manifesttest.Access{
		{Verb: "list", Group: m, Resource: "machinedeployments", Namespace: mcmNamespace},
		{Verb: "get", Group: m, Resource: "machinedeployments", Namespace: mcmNamespace, Name: "md"},
		{Verb: "list", Group: m, Resource: "machines", Namespace: mcmNamespace},
		{Verb: "list", Group: m, Resource: "machineclasses", Namespace: mcmNamespace},
		{Verb: "get", Group: "apps", Resource: "deployments", Namespace: mcmNamespace, Name: "machine-controller-manager"},
	}, []manifesttest.Access{
		{Verb: "patch", Group: m, Resource: "machinedeployments", Namespace: mcmNamespace, Name: "md"},
		{Verb: "update", Group: m, Resource: "machinedeployments", Namespace: mcmNamespace, Name: "md"},
		{Verb: "patch", Group: m, Resource: "machines", Namespace: mcmNamespace, Name: "m"},
		{Verb: "delete", Group: m, Resource: "machines", Namespace: mcmNamespace, Name: "m"},
	})
}

// The ServiceAccount of the overlay, and the example control namespace of
// rbac-mcm-control.yaml.
const (
	account      = "kscale-node-autoscaler-shadow"
	mcmNamespace = "shoot--garden--example"
)

// decodeDocs decodes the YAML documents of a file.
func decodeDocs(t *testing.T, data []byte) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := yaml.Unmarshal(doc, &m); err != nil {
			t.Fatal(err)
		}
		if m != nil {
			out = append(out, &unstructured.Unstructured{Object: m})
		}
	}
}
