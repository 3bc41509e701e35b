// Package updater_test checks the vpa-updater manifests against a real API server:
// every object is accepted, and the RBAC grants exactly what
// `kscale vpa-updater` needs.
package updater_test

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
		{Verb: "watch", Resource: "pods"},
		{Verb: "create", Resource: "pods", Subresource: "eviction", Namespace: "team-a", Name: "web-1"},
		{Verb: "patch", Resource: "pods", Subresource: "resize", Namespace: "team-a", Name: "web-1"},
		{Verb: "patch", Resource: "pods", Namespace: "team-a", Name: "web-1"},
		{Verb: "list", Resource: "limitranges"},
		{Verb: "watch", Group: "apps", Resource: "replicasets"},
		{Verb: "list", Group: "apps", Resource: "statefulsets"},
		{Verb: "list", Group: "apps", Resource: "daemonsets"},
		{Verb: "list", Resource: "replicationcontrollers"},
		{Verb: "watch", Group: "apps", Resource: "deployments"},
		{Verb: "list", Group: "batch", Resource: "cronjobs"},
		{Verb: "watch", Group: "batch", Resource: "jobs"},
		{Verb: "get", Group: "example.com", Resource: "widgets", Subresource: "scale", Namespace: "team-a", Name: "w"},
		{Verb: "create", Group: "events.k8s.io", Resource: "events", Namespace: "team-a"},
		{Verb: "get", Group: "coordination.k8s.io", Resource: "leases", Namespace: "kube-system", Name: "vpa-admission-controller"},
		{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Namespace: "kube-system", Name: "vpa-updater"},
		{Verb: "create", Group: "coordination.k8s.io", Resource: "leases", Namespace: "kube-system"},
	}
	denied := []manifesttest.Access{
		{Verb: "delete", Resource: "pods", Namespace: "team-a", Name: "web-1"},
		{Verb: "update", Resource: "pods", Namespace: "team-a", Name: "web-1"},
		{Verb: "update", Group: "apps", Resource: "deployments", Namespace: "team-a", Name: "web"},
		{Verb: "update", Group: "autoscaling.k8s.io", Resource: "verticalpodautoscalers", Subresource: "status", Namespace: "team-a", Name: "web"},
		{Verb: "get", Resource: "secrets", Namespace: "kube-system", Name: "any"},
		{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Namespace: "kube-system", Name: "vpa-admission-controller"},
		{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Namespace: "team-a", Name: "vpa-updater"},
		{Verb: "patch", Resource: "nodes", Name: "node-1"},
	}
	manifesttest.ExpectAccess(t, env, "kube-system", "kscale-vpa-updater", allowed, denied)
}
