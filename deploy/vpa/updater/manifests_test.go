// Package updater_test checks the vpa-updater manifests against a real API
// server: every object is accepted, and the RBAC grants exactly what
// `kscale vpa-updater` needs.
package updater_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/kscale/kscale/internal/testenv"
)

const serviceAccount = "system:serviceaccount:kube-system:kscale-vpa-updater"

// access is one request the updater's identity makes, or must not make.
type access struct {
	verb, group, resource, subresource, namespace, name string
}

func TestManifests(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	c, err := client.New(env.Config, client.Options{Scheme: clientgoscheme.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	for _, obj := range decodeKustomization(t, ".") {
		if err := c.Create(t.Context(), obj); err != nil {
			t.Fatalf("creating %s %s: %v", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName(), err)
		}
	}
	allowed := []access{
		{"list", "autoscaling.k8s.io", "verticalpodautoscalers", "", "", ""},
		{"watch", "", "pods", "", "", ""},
		{"create", "", "pods", "eviction", "team-a", "web-1"},
		{"patch", "", "pods", "resize", "team-a", "web-1"},
		{"patch", "", "pods", "", "team-a", "web-1"},
		{"list", "", "limitranges", "", "", ""},
		{"watch", "apps", "replicasets", "", "", ""},
		{"list", "apps", "statefulsets", "", "", ""},
		{"list", "apps", "daemonsets", "", "", ""},
		{"list", "", "replicationcontrollers", "", "", ""},
		{"watch", "apps", "deployments", "", "", ""},
		{"list", "batch", "cronjobs", "", "", ""},
		{"watch", "batch", "jobs", "", "", ""},
		{"get", "example.com", "widgets", "scale", "team-a", "w"},
		{"create", "events.k8s.io", "events", "", "team-a", ""},
		{"get", "coordination.k8s.io", "leases", "", "kube-system", "vpa-admission-controller"},
		{"update", "coordination.k8s.io", "leases", "", "kube-system", "vpa-updater"},
		{"create", "coordination.k8s.io", "leases", "", "kube-system", ""},
	}
	denied := []access{
		{"delete", "", "pods", "", "team-a", "web-1"},
		{"update", "", "pods", "", "team-a", "web-1"},
		{"update", "apps", "deployments", "", "team-a", "web"},
		{"update", "autoscaling.k8s.io", "verticalpodautoscalers", "status", "team-a", "web"},
		{"get", "", "secrets", "", "kube-system", "any"},
		{"update", "coordination.k8s.io", "leases", "", "kube-system", "vpa-admission-controller"},
		{"update", "coordination.k8s.io", "leases", "", "team-a", "vpa-updater"},
		{"patch", "", "nodes", "", "", "node-1"},
	}
	for _, a := range allowed {
		if !can(t, c, a) {
			t.Errorf("%s may not %s %+v; the updater needs it", serviceAccount, a.verb, a)
		}
	}
	for _, a := range denied {
		if can(t, c, a) {
			t.Errorf("%s may %s %+v; least privilege forbids it", serviceAccount, a.verb, a)
		}
	}
}

func can(t *testing.T, c client.Client, a access) bool {
	t.Helper()
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: serviceAccount, Groups: []string{"system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{
			Verb: a.verb, Group: a.group, Resource: a.resource, Subresource: a.subresource, Namespace: a.namespace, Name: a.name,
		},
	}}
	if err := c.Create(t.Context(), sar); err != nil {
		t.Fatal(err)
	}
	return sar.Status.Allowed
}

// decodeKustomization decodes every object of every resource file listed in
// dir/kustomization.yaml, rejecting unknown fields.
func decodeKustomization(t *testing.T, dir string) []client.Object {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var k struct {
		APIVersion string   `json:"apiVersion"`
		Kind       string   `json:"kind"`
		Resources  []string `json:"resources"`
	}
	if err := yaml.UnmarshalStrict(raw, &k); err != nil {
		t.Fatalf("kustomization.yaml: %v", err)
	}
	var objs []client.Object
	for _, file := range k.Resources {
		objs = append(objs, decodeFile(t, filepath.Join(dir, file))...)
	}
	return objs
}

func decodeFile(t *testing.T, path string) []client.Object {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(raw)))
	var objs []client.Object
	for i := 0; ; i++ {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return objs
		}
		if err != nil {
			t.Fatalf("%s document %d: %v", path, i, err)
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		obj, err := decodeStrict(doc)
		if err != nil {
			t.Fatalf("%s document %d: %v", path, i, err)
		}
		if obj.GetNamespace() == "" && obj.GetObjectKind().GroupVersionKind().Kind != "ClusterRole" && obj.GetObjectKind().GroupVersionKind().Kind != "ClusterRoleBinding" {
			t.Errorf("%s document %d (%s %s): namespace missing", path, i, obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName())
		}
		objs = append(objs, obj)
	}
}

func decodeStrict(doc []byte) (client.Object, error) {
	var meta metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &meta); err != nil {
		return nil, err
	}
	obj, err := clientgoscheme.Scheme.New(meta.GroupVersionKind())
	if err != nil {
		return nil, err
	}
	if err := yaml.UnmarshalStrict(doc, obj); err != nil {
		return nil, err
	}
	co, ok := obj.(client.Object)
	if !ok {
		return nil, errors.New("not an object")
	}
	co.GetObjectKind().SetGroupVersionKind(meta.GroupVersionKind())
	return co, nil
}
