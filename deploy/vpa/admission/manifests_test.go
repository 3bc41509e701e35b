// Package admission_test checks the vpa-admission manifests against a real API server:
// every object is accepted, and the RBAC grants exactly what
// `kscale vpa-admission` needs.
package admission_test

import (
	"testing"

	"github.com/kscale/kscale/internal/manifesttest"
	"github.com/kscale/kscale/internal/testenv"
)

func TestManifests(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	manifesttest.Create(t, env, manifesttest.Load(t, "."))
	allowed := []manifesttest.Access{
		{Verb: "list", Group: "autoscaling.k8s.io", Resource: "verticalpodautoscalers"},
		{Verb: "watch", Group: "autoscaling.k8s.io", Resource: "verticalpodautoscalers"},
		{Verb: "list", Resource: "limitranges"},
		{Verb: "watch", Resource: "limitranges"},
		{Verb: "get", Group: "apps", Resource: "replicasets", Namespace: "team-a", Name: "web-abc"},
		{Verb: "get", Group: "apps", Resource: "deployments", Namespace: "team-a", Name: "web"},
		{Verb: "get", Group: "batch", Resource: "jobs", Namespace: "team-a", Name: "nightly-1"},
		{Verb: "get", Resource: "replicationcontrollers", Namespace: "team-a", Name: "old"},
		{Verb: "get", Group: "example.com", Resource: "widgets", Subresource: "scale", Namespace: "team-a", Name: "w"},
		{Verb: "create", Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations"},
		{Verb: "get", Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations", Name: "vpa-webhook-config"},
		{Verb: "patch", Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations", Name: "vpa-webhook-config"},
		{Verb: "create", Resource: "secrets", Namespace: "kube-system"},
		{Verb: "get", Resource: "secrets", Namespace: "kube-system", Name: "kscale-vpa-webhook-tls"},
		{Verb: "update", Resource: "secrets", Namespace: "kube-system", Name: "kscale-vpa-webhook-tls"},
		{Verb: "create", Group: "coordination.k8s.io", Resource: "leases", Namespace: "kube-system"},
		{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Namespace: "kube-system", Name: "vpa-admission-controller"},
	}
	denied := []manifesttest.Access{
		{Verb: "update", Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations", Name: "another-webhook"},
		{Verb: "update", Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations", Name: "vpa-webhook-config"},
		{Verb: "delete", Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations", Name: "vpa-webhook-config"},
		{Verb: "update", Group: "admissionregistration.k8s.io", Resource: "validatingwebhookconfigurations", Name: "vpa-webhook-config"},
		{Verb: "create", Resource: "pods", Subresource: "eviction", Namespace: "team-a", Name: "web-1"},
		{Verb: "list", Resource: "pods"},
		{Verb: "update", Group: "autoscaling.k8s.io", Resource: "verticalpodautoscalers", Namespace: "team-a", Name: "web"},
		{Verb: "get", Resource: "secrets", Namespace: "kube-system", Name: "kscale-custom-metrics-tls"},
		{Verb: "list", Resource: "secrets", Namespace: "kube-system"},
		{Verb: "delete", Resource: "secrets", Namespace: "kube-system", Name: "kscale-vpa-webhook-tls"},
		{Verb: "create", Resource: "secrets", Namespace: "default"},
		{Verb: "patch", Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations", Name: "another-webhook"},
		{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Namespace: "kube-system", Name: "vpa-updater"},
	}
	manifesttest.ExpectAccess(t, env, "kube-system", "kscale-vpa-admission", allowed, denied)
}
