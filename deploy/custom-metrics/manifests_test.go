// Package custommetrics_test checks the custom-metrics manifests against a
// real API server: every object is accepted, and the RBAC grants exactly
// what `kscale custom-metrics` needs.
package custommetrics_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/kscale/kscale/internal/testenv"
)

const serviceAccount = "system:serviceaccount:kube-system:kscale-custom-metrics"

type access struct {
	verb, group, resource, subresource, namespace, name string
}

func TestManifests(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	c, err := client.New(env.Config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, obj := range decodeKustomization(t) {
		if err := c.Create(t.Context(), obj); err != nil {
			t.Fatalf("creating %s %s: %v", obj.GetKind(), obj.GetName(), err)
		}
	}
	allowed := []access{
		{"list", "", "pods", "", "", ""},
		{"watch", "", "pods", "", "", ""},
		{"list", "", "secrets", "", "", ""},
		{"watch", "", "secrets", "", "", ""},
		{"create", "authentication.k8s.io", "tokenreviews", "", "", ""},
		{"create", "authorization.k8s.io", "subjectaccessreviews", "", "", ""},
		{"get", "", "configmaps", "", "kube-system", "extension-apiserver-authentication"},
		{"create", "coordination.k8s.io", "leases", "", "kube-system", ""},
		{"get", "coordination.k8s.io", "leases", "", "kube-system", "kscale-custom-metrics-leader-election"},
		{"update", "coordination.k8s.io", "leases", "", "kube-system", "kscale-custom-metrics-leader-election"},
		{"create", "discovery.k8s.io", "endpointslices", "", "kube-system", ""},
		{"get", "discovery.k8s.io", "endpointslices", "", "kube-system", "kscale-custom-metrics"},
		{"update", "discovery.k8s.io", "endpointslices", "", "kube-system", "kscale-custom-metrics"},
		{"delete", "discovery.k8s.io", "endpointslices", "", "kube-system", "kscale-custom-metrics"},
	}
	denied := []access{
		{"get", "", "secrets", "", "shoot--p--a", "ca"},
		{"update", "", "secrets", "", "shoot--p--a", "ca"},
		{"update", "", "pods", "", "shoot--p--a", "kube-apiserver-1"},
		{"create", "", "pods", "", "shoot--p--a", ""},
		{"update", "coordination.k8s.io", "leases", "", "kube-system", "kube-controller-manager"},
		{"update", "discovery.k8s.io", "endpointslices", "", "kube-system", "kube-dns"},
		{"delete", "discovery.k8s.io", "endpointslices", "", "kube-system", "other"},
		{"create", "discovery.k8s.io", "endpointslices", "", "default", ""},
		{"update", "", "endpoints", "", "kube-system", "kscale-custom-metrics"},
		{"list", "", "nodes", "", "", ""},
		{"get", "", "configmaps", "", "kube-system", "other"},
	}
	for _, a := range allowed {
		if !can(t, env, a) {
			t.Errorf("%+v denied, want allowed", a)
		}
	}
	for _, a := range denied {
		if can(t, env, a) {
			t.Errorf("%+v allowed, want denied", a)
		}
	}
}

func can(t *testing.T, env *testenv.Env, a access) bool {
	t.Helper()
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:   serviceAccount,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{
			Verb: a.verb, Group: a.group, Resource: a.resource, Subresource: a.subresource, Namespace: a.namespace, Name: a.name,
		},
	}}
	res, err := env.Client.AuthorizationV1().SubjectAccessReviews().Create(t.Context(), sar, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return res.Status.Allowed
}

// decodeKustomization reads every document of every resource the
// kustomization lists.
func decodeKustomization(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	raw, err := os.ReadFile("kustomization.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var k struct {
		Resources []string `json:"resources"`
	}
	if err := yaml.Unmarshal(raw, &k); err != nil {
		t.Fatal(err)
	}
	var objs []*unstructured.Unstructured
	for _, file := range k.Resources {
		data, err := os.ReadFile(filepath.Clean(file))
		if err != nil {
			t.Fatal(err)
		}
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			var m map[string]any
			if err := dec.Decode(&m); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			if len(m) > 0 {
				objs = append(objs, &unstructured.Unstructured{Object: m})
			}
		}
	}
	if len(objs) < 10 {
		t.Fatalf("decoded %d objects, want every object of the kustomization", len(objs))
	}
	return objs
}
