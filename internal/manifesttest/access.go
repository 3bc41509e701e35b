package manifesttest

import (
	"fmt"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/testenv"
)

// Access is one request an identity makes, or must not make.
type Access struct {
	// Verb is the API verb, for example "list" or "create".
	Verb string
	// Group is the API group; "" for the core group.
	Group string
	// Resource is the plural resource name.
	Resource string
	// Subresource is, for example, "eviction" or "status"; usually "".
	Subresource string
	// Namespace is the request's namespace; "" for cluster-wide requests.
	Namespace string
	// Name is the object's name; "" for list, watch and create.
	Name string
}

// String renders the access as "verb group/resource/subresource ns/name".
func (a Access) String() string {
	return fmt.Sprintf("%s %s/%s/%s %s/%s", a.Verb, a.Group, a.Resource, a.Subresource, a.Namespace, a.Name)
}

// ExpectAccess asks the API server, through SubjectAccessReviews, whether
// the ServiceAccount namespace/name may make each request, and fails the
// test for every allowed request it may not make and every denied one it may.
func ExpectAccess(tb testing.TB, env *testenv.Env, namespace, name string, allowed, denied []Access) {
	tb.Helper()
	user := "system:serviceaccount:" + namespace + ":" + name
	for _, a := range allowed {
		if !can(tb, env, namespace, user, a) {
			tb.Errorf("%s may not %s; the component needs it", user, a)
		}
	}
	for _, a := range denied {
		if can(tb, env, namespace, user, a) {
			tb.Errorf("%s may %s; least privilege forbids it", user, a)
		}
	}
}

func can(tb testing.TB, env *testenv.Env, namespace, user string, a Access) bool {
	tb.Helper()
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:   user,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{
			Verb: a.Verb, Group: a.Group, Resource: a.Resource, Subresource: a.Subresource, Namespace: a.Namespace, Name: a.Name,
		},
	}}
	res, err := env.Client.AuthorizationV1().SubjectAccessReviews().Create(tb.Context(), sar, metav1.CreateOptions{})
	if err != nil {
		tb.Fatalf("reviewing access %s: %v", a, err)
	}
	return res.Status.Allowed
}

// CloudNodeAutoscalerAccess are the requests of a node autoscaler whose
// machines come and go through a cloud API (aws, externalgrpc), for a node
// and a pod named node and pod: allowed, the common rules it needs (taint
// the node, evict the pod, write the status and backoff ConfigMaps);
// denied, what only kwok's node writes or no provider needs (creating,
// patching or deleting nodes, node and pod status, deleting pods, node
// Leases, Secrets, the kwok cloud's and the priority expander's
// ConfigMaps).
func CloudNodeAutoscalerAccess(node, pod string) (allowed, denied []Access) {
	allowed = []Access{
		{Verb: "update", Resource: "nodes", Name: node},
		{Verb: "create", Resource: "pods", Subresource: "eviction", Namespace: "default", Name: pod},
		{Verb: "update", Resource: "configmaps", Namespace: "kube-system", Name: "cluster-autoscaler-status"},
		{Verb: "update", Resource: "configmaps", Namespace: "kube-system", Name: "cluster-autoscaler-backoff"},
	}
	denied = []Access{
		{Verb: "create", Resource: "nodes"},
		{Verb: "patch", Resource: "nodes", Name: node},
		{Verb: "delete", Resource: "nodes", Name: node},
		{Verb: "update", Resource: "nodes", Subresource: "status", Name: node},
		{Verb: "update", Resource: "pods", Subresource: "status", Namespace: "default", Name: pod},
		{Verb: "delete", Resource: "pods", Namespace: "default", Name: pod},
		{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Namespace: "kube-node-lease", Name: node},
		{Verb: "get", Resource: "secrets", Namespace: "kube-system", Name: "any"},
		{Verb: "update", Resource: "configmaps", Namespace: "kube-system", Name: "kscale-kwok-cloud"},
		{Verb: "update", Resource: "configmaps", Namespace: "kube-system", Name: "cluster-autoscaler-priority-expander"},
	}
	return allowed, denied
}
