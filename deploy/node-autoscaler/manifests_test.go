// Package nodeautoscaler_test checks the node-autoscaler manifests against
// a real API server: every object of the kustomization and of its
// monitoring overlay (with prometheus-operator's CRDs from its Go module)
// is accepted, the cloud config in the ConfigMap parses, the metrics
// Service and the ServiceMonitor select the pods' metrics port, and the
// RBAC denies what the command never needs. That the RBAC suffices is
// shown by the end-to-end test in test/e2e, which runs the command
// under this ServiceAccount.
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
	manifesttest.InstallCRDs(t, env, manifesttest.ModuleCRDs(t, manifesttest.PrometheusOperator,
		"example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml",
		"example/prometheus-operator-crd/monitoring.coreos.com_prometheusrules.yaml"))
	objs := manifesttest.Load(t, "../node-autoscaler-monitoring")
	if base := manifesttest.Load(t, "."); len(objs) != len(base)+2 {
		t.Errorf("monitoring has %d objects, want the base's %d and a ServiceMonitor and a PrometheusRule", len(objs), len(base))
	}
	expectMetricsSelected(t, objs)
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
		// The kubelets of kwok nodes are the real kwok controller, not the provider.
		{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Namespace: "kube-node-lease", Name: "node-1"},
		{Verb: "update", Resource: "pods", Subresource: "status", Namespace: "default", Name: "web-1"},
		{Verb: "delete", Resource: "pods", Namespace: "default", Name: "web-1"},
	}
	// The durable state it writes: status, backoff and the kwok cloud's targets.
	allowed := []manifesttest.Access{
		{Verb: "update", Resource: "configmaps", Namespace: "kube-system", Name: "cluster-autoscaler-status"},
		{Verb: "update", Resource: "configmaps", Namespace: "kube-system", Name: "cluster-autoscaler-backoff"},
		{Verb: "update", Resource: "configmaps", Namespace: "kube-system", Name: "kscale-kwok-cloud"},
	}
	manifesttest.ExpectAccess(t, env, "kube-system", "kscale-node-autoscaler", allowed, denied)
}

// expectMetricsSelected checks that the Service selects the Deployment's
// pods on their metrics port and that the ServiceMonitor scrapes that
// Service's port.
func expectMetricsSelected(t *testing.T, objs []*unstructured.Unstructured) {
	t.Helper()
	byKind := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		byKind[o.GetKind()] = o
	}
	podLabels, _, _ := unstructured.NestedStringMap(byKind["Deployment"].Object, "spec", "template", "metadata", "labels")
	selector, _, _ := unstructured.NestedStringMap(byKind["Service"].Object, "spec", "selector")
	for k, v := range selector {
		if podLabels[k] != v {
			t.Errorf("Service selector %s=%s does not match the pods", k, v)
		}
	}
	ports, _, _ := unstructured.NestedSlice(byKind["Service"].Object, "spec", "ports")
	port := ports[0].(map[string]any)
	if port["targetPort"] != "metrics" {
		t.Errorf("Service targets port %v, want the pods' metrics port", port["targetPort"])
	}
	serviceLabels := byKind["Service"].GetLabels()
	monitorSelector, _, _ := unstructured.NestedStringMap(byKind["ServiceMonitor"].Object, "spec", "selector", "matchLabels")
	for k, v := range monitorSelector {
		if serviceLabels[k] != v {
			t.Errorf("ServiceMonitor selector %s=%s does not match the Service", k, v)
		}
	}
	endpoints, _, _ := unstructured.NestedSlice(byKind["ServiceMonitor"].Object, "spec", "endpoints")
	if endpoints[0].(map[string]any)["port"] != port["name"] {
		t.Errorf("ServiceMonitor scrapes port %v, the Service's is %v", endpoints[0].(map[string]any)["port"], port["name"])
	}
}
