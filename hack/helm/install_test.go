package chartcheck

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kscale/kscale/internal/manifesttest"
	"github.com/kscale/kscale/internal/testenv"
)

// A is shorthand for an access a ServiceAccount makes or must not make.
type A = manifesttest.Access

// installCase is one release: a values file, its namespace, and the
// accesses the ServiceAccounts it creates must and must not have.
type installCase struct {
	values, namespace string
	// access maps a component's ServiceAccount to its allowed and denied accesses.
	access map[string][2][]A
}

var installCases = []installCase{
	{values: "defaults.yaml", namespace: "kscale-system", access: map[string][2][]A{
		"kscale-node-autoscaler": {{
			{Verb: "update", Resource: "configmaps", Namespace: "kscale-system", Name: "cluster-autoscaler-status"},
			{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Namespace: "kscale-system", Name: "cluster-autoscaler"},
			{Verb: "create", Resource: "pods", Subresource: "eviction", Namespace: "default", Name: "web-1"},
		}, {
			{Verb: "update", Resource: "configmaps", Namespace: "kube-system", Name: "cluster-autoscaler-status"},
			// The kubelets' writes are kwok's own, not the provider's.
			{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Namespace: "kube-node-lease", Name: "node-1"},
			{Verb: "update", Resource: "pods", Subresource: "status", Namespace: "default", Name: "web-1"},
			{Verb: "delete", Resource: "pods", Namespace: "default", Name: "web-1"},
			{Verb: "get", Resource: "secrets", Namespace: "kscale-system", Name: "kscale-vpa-webhook-tls"},
		}},
		"kscale-vpa-admission": {{
			{Verb: "create", Resource: "secrets", Namespace: "kscale-system"},
			{Verb: "update", Resource: "secrets", Namespace: "kscale-system", Name: "kscale-vpa-webhook-tls"},
			{Verb: "create", Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations"},
			{Verb: "patch", Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations", Name: "vpa-webhook-config"},
			{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Namespace: "kscale-system", Name: "vpa-admission-controller"},
		}, {
			{Verb: "get", Resource: "secrets", Namespace: "kube-system", Name: "kscale-vpa-webhook-tls"},
			{Verb: "update", Resource: "secrets", Namespace: "kscale-system", Name: "other"},
			{Verb: "update", Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations", Name: "vpa-webhook-config"},
		}},
		"kscale-vpa-recommender": {{
			{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Namespace: "kscale-system", Name: "vpa-recommender-lease"},
			{Verb: "patch", Group: "autoscaling.k8s.io", Resource: "verticalpodautoscalers", Subresource: "status", Namespace: "team-a", Name: "web"},
		}, {
			{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Namespace: "kube-system", Name: "vpa-recommender-lease"},
		}},
		"kscale-vpa-updater": {{
			{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Namespace: "kscale-system", Name: "vpa-updater"},
			{Verb: "get", Group: "coordination.k8s.io", Resource: "leases", Namespace: "kscale-system", Name: "vpa-admission-controller"},
		}, nil},
	}},
	{values: "cert-manager.yaml", namespace: "kscale-cm", access: map[string][2][]A{
		"kscale-vpa-admission": {{
			{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Namespace: "kscale-cm", Name: "vpa-admission-controller"},
		}, {
			{Verb: "create", Resource: "secrets", Namespace: "kscale-cm"},
			{Verb: "get", Resource: "secrets", Namespace: "kscale-cm", Name: "kscale-vpa-webhook-tls"},
			{Verb: "create", Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations"},
			{Verb: "patch", Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations", Name: "vpa-webhook-config"},
			{Verb: "update", Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations", Name: "vpa-webhook-config"},
		}},
		"kscale-custom-metrics": {{
			{Verb: "create", Resource: "endpoints", Namespace: "kscale-cm"},
			{Verb: "get", Resource: "configmaps", Namespace: "kube-system", Name: "extension-apiserver-authentication"},
			{Verb: "create", Group: "authorization.k8s.io", Resource: "subjectaccessreviews"},
		}, {
			{Verb: "patch", Group: "apiregistration.k8s.io", Resource: "apiservices", Name: "v1beta2.custom.metrics.k8s.io"},
			{Verb: "create", Resource: "secrets", Namespace: "kscale-cm"},
		}},
	}},
	{values: "node-autoscaler-only.yaml", namespace: "kube-system", access: map[string][2][]A{
		"kscale-node-autoscaler": {{
			{Verb: "get", Resource: "configmaps", Namespace: "kube-system", Name: "cluster-autoscaler-priority-expander"},
			{Verb: "update", Resource: "configmaps", Namespace: "kube-system", Name: "cluster-autoscaler-backoff"},
		}, {
			{Verb: "update", Resource: "configmaps", Namespace: "kube-system", Name: "cluster-autoscaler-priority-expander"},
		}},
	}},
	{values: "kustomize-aws.yaml", namespace: "kube-system", access: map[string][2][]A{
		"kscale-node-autoscaler": {{
			{Verb: "update", Resource: "nodes", Name: "ip-10-0-0-1"},
			{Verb: "list", Resource: "nodes"},
			{Verb: "create", Resource: "pods", Subresource: "eviction", Namespace: "default", Name: "web-1"},
			{Verb: "update", Resource: "configmaps", Namespace: "kube-system", Name: "cluster-autoscaler-status"},
			{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Namespace: "kube-system", Name: "cluster-autoscaler"},
		}, {
			{Verb: "create", Resource: "nodes"},
			{Verb: "delete", Resource: "nodes", Name: "ip-10-0-0-1"},
			{Verb: "patch", Resource: "nodes", Name: "ip-10-0-0-1"},
			{Verb: "update", Resource: "nodes", Subresource: "status", Name: "ip-10-0-0-1"},
			{Verb: "update", Resource: "pods", Subresource: "status", Namespace: "default", Name: "web-1"},
			{Verb: "delete", Resource: "pods", Namespace: "default", Name: "web-1"},
			{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Namespace: "kube-node-lease", Name: "ip-10-0-0-1"},
			{Verb: "update", Resource: "configmaps", Namespace: "kube-system", Name: "kscale-kwok-cloud"},
			{Verb: "patch", Group: "cluster.x-k8s.io", Resource: "machinedeployments", Subresource: "scale", Namespace: "default", Name: "md-1"},
		}},
	}},
	{values: "kustomize-clusterapi.yaml", namespace: "kube-system", access: map[string][2][]A{
		"kscale-node-autoscaler": {{
			{Verb: "update", Resource: "nodes", Name: "node-1"},
			{Verb: "list", Group: "cluster.x-k8s.io", Resource: "machinedeployments"},
			{Verb: "patch", Group: "cluster.x-k8s.io", Resource: "machinedeployments", Subresource: "scale", Namespace: "default", Name: "md-1"},
			{Verb: "patch", Group: "cluster.x-k8s.io", Resource: "machines", Namespace: "default", Name: "m-1"},
			{Verb: "list", Group: "infrastructure.cluster.x-k8s.io", Resource: "dockermachinetemplates"},
		}, {
			{Verb: "create", Resource: "nodes"},
			{Verb: "patch", Resource: "nodes", Name: "node-1"},
			{Verb: "delete", Resource: "nodes", Name: "node-1"},
			{Verb: "update", Resource: "pods", Subresource: "status", Namespace: "default", Name: "web-1"},
			{Verb: "delete", Group: "cluster.x-k8s.io", Resource: "machines", Namespace: "default", Name: "m-1"},
			{Verb: "update", Group: "cluster.x-k8s.io", Resource: "machinedeployments", Namespace: "default", Name: "md-1"},
			{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Namespace: "kube-node-lease", Name: "node-1"},
		}},
	}},
	{values: "vpa-only.yaml", namespace: "kscale-vpa", access: map[string][2][]A{
		"kscale-vpa-admission": {{
			{Verb: "get", Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations", Name: "vpa-webhook-config"},
			{Verb: "patch", Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations", Name: "vpa-webhook-config"},
			{Verb: "create", Resource: "secrets", Namespace: "kscale-vpa"},
		}, {
			{Verb: "create", Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations"},
			{Verb: "update", Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations", Name: "vpa-webhook-config"},
		}},
		"kscale-vpa-recommender": {nil, {
			{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Namespace: "kscale-vpa", Name: "vpa-recommender-lease"},
		}},
	}},
}

// TestInstall applies the chart, rendered with each values file, to a
// real API server (CRDs first: the chart's own, prometheus-operator's and
// cert-manager's from their Go modules), checks the RBAC of every
// ServiceAccount it creates with SubjectAccessReviews, and removes it
// again before the next release.
func TestInstall(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	var crds []*apiextensionsv1.CustomResourceDefinition
	crds = append(crds, manifesttest.ModuleCRDs(t, manifesttest.PrometheusOperator,
		"example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml", "example/prometheus-operator-crd/monitoring.coreos.com_prometheusrules.yaml")...)
	crds = append(crds, manifesttest.ModuleCRDs(t, manifesttest.CertManager,
		"deploy/crds/cert-manager.io_certificates.yaml", "deploy/crds/cert-manager.io_issuers.yaml", "deploy/crds/cert-manager.io_clusterissuers.yaml")...)
	r, err := Render(chartDir, Release{Name: "kscale", Namespace: "kube-system"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range r.CRDs {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, crd); err != nil {
			t.Fatal(err)
		}
		crds = append(crds, crd)
	}
	manifesttest.InstallCRDs(t, env, crds)
	c, err := client.New(env.Config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{"kscale-system", "kscale-cm", "kscale-vpa", "monitoring"} {
		if err := c.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range installCases {
		t.Run(tc.values, func(t *testing.T) {
			r, err := Render(chartDir, Release{Name: "kscale", Namespace: tc.namespace}, readValues(t, "testdata/values/"+tc.values))
			if err != nil {
				t.Fatal(err)
			}
			manifesttest.Create(t, env, r.Objects)
			t.Cleanup(func() { remove(t, c, r.Objects) })
			for sa, access := range tc.access {
				manifesttest.ExpectAccess(t, env, tc.namespace, sa, access[0], access[1])
			}
		})
	}
}

// remove deletes the objects (a namespace deletion would need the
// namespace controller, which the test control plane does not run).
func remove(t *testing.T, c client.Client, objs []*unstructured.Unstructured) {
	ctx := context.WithoutCancel(t.Context())
	for i := len(objs) - 1; i >= 0; i-- {
		if err := c.Delete(ctx, objs[i].DeepCopy()); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting %s %s: %v", objs[i].GetKind(), objs[i].GetName(), err)
		}
	}
}
