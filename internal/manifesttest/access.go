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
