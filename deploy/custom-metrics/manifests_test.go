// Package custommetrics_test checks the custom-metrics manifests against a real API server:
// every object is accepted, and the RBAC grants exactly what
// `kscale custom-metrics` needs.
package custommetrics_test

import (
	"testing"

	"github.com/kscale/kscale/internal/manifesttest"
	"github.com/kscale/kscale/internal/testenv"
)

func TestManifests(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	manifesttest.Create(t, env, manifesttest.Load(t, "."))
	allowed := []manifesttest.Access{
		{Verb: "list", Resource: "pods"},
		{Verb: "watch", Resource: "pods"},
		{Verb: "list", Resource: "secrets"},
		{Verb: "watch", Resource: "secrets"},
		{Verb: "create", Group: "authentication.k8s.io", Resource: "tokenreviews"},
		{Verb: "create", Group: "authorization.k8s.io", Resource: "subjectaccessreviews"},
		{Verb: "get", Resource: "configmaps", Namespace: "kube-system", Name: "extension-apiserver-authentication"},
		{Verb: "create", Group: "coordination.k8s.io", Resource: "leases", Namespace: "kube-system"},
		{Verb: "get", Group: "coordination.k8s.io", Resource: "leases", Namespace: "kube-system", Name: "gardener-custom-metrics-leader-election"},
		{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Namespace: "kube-system", Name: "gardener-custom-metrics-leader-election"},
		{Verb: "create", Resource: "endpoints", Namespace: "kube-system"},
		{Verb: "get", Resource: "endpoints", Namespace: "kube-system", Name: "kscale-custom-metrics"},
		{Verb: "update", Resource: "endpoints", Namespace: "kube-system", Name: "kscale-custom-metrics"},
		{Verb: "create", Resource: "secrets", Namespace: "kube-system"},
		{Verb: "get", Resource: "secrets", Namespace: "kube-system", Name: "kscale-custom-metrics-tls"},
		{Verb: "update", Resource: "secrets", Namespace: "kube-system", Name: "kscale-custom-metrics-tls"},
		{Verb: "get", Group: "apiregistration.k8s.io", Resource: "apiservices", Name: "v1beta2.custom.metrics.k8s.io"},
		{Verb: "patch", Group: "apiregistration.k8s.io", Resource: "apiservices", Name: "v1beta2.custom.metrics.k8s.io"},
		{Verb: "patch", Group: "apiregistration.k8s.io", Resource: "apiservices", Name: "v1beta1.custom.metrics.k8s.io"},
	}
	denied := []manifesttest.Access{
		{Verb: "get", Resource: "secrets", Namespace: "shoot--p--a", Name: "ca"},
		{Verb: "update", Resource: "secrets", Namespace: "shoot--p--a", Name: "ca"},
		{Verb: "update", Resource: "pods", Namespace: "shoot--p--a", Name: "kube-apiserver-1"},
		{Verb: "create", Resource: "pods", Namespace: "shoot--p--a"},
		{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Namespace: "kube-system", Name: "kube-controller-manager"},
		{Verb: "update", Resource: "endpoints", Namespace: "kube-system", Name: "kube-dns"},
		{Verb: "delete", Resource: "endpoints", Namespace: "kube-system", Name: "kscale-custom-metrics"},
		{Verb: "create", Resource: "endpoints", Namespace: "default"},
		{Verb: "create", Group: "discovery.k8s.io", Resource: "endpointslices", Namespace: "kube-system"},
		{Verb: "list", Resource: "nodes"},
		{Verb: "get", Resource: "configmaps", Namespace: "kube-system", Name: "other"},
		{Verb: "get", Resource: "secrets", Namespace: "kube-system", Name: "kscale-vpa-webhook-tls"},
		{Verb: "update", Resource: "secrets", Namespace: "kube-system", Name: "other"},
		{Verb: "create", Resource: "secrets", Namespace: "shoot--p--a"},
		{Verb: "patch", Group: "apiregistration.k8s.io", Resource: "apiservices", Name: "v1beta1.metrics.k8s.io"},
		{Verb: "update", Group: "apiregistration.k8s.io", Resource: "apiservices", Name: "v1beta2.custom.metrics.k8s.io"},
		{Verb: "create", Group: "apiregistration.k8s.io", Resource: "apiservices"},
	}
	manifesttest.ExpectAccess(t, env, "kube-system", "kscale-custom-metrics", allowed, denied)
}
