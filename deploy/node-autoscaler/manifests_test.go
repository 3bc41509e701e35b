// Package nodeautoscaler_test checks the node-autoscaler manifests against
// a real API server: every object of the kustomization is accepted, the
// cloud config in the ConfigMap parses, and the RBAC denies what the
// command never needs. That the RBAC suffices is shown by the end-to-end
// test in internal/cli, which runs the command under this ServiceAccount.
package nodeautoscaler_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/kscale/kscale/internal/cloudprovider/kwok"
	"github.com/kscale/kscale/internal/testenv"
)

const serviceAccount = "system:serviceaccount:kube-system:kscale-node-autoscaler"

func TestManifests(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	c, err := client.New(env.Config, client.Options{Scheme: clientgoscheme.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	var k struct {
		APIVersion string   `json:"apiVersion"`
		Kind       string   `json:"kind"`
		Resources  []string `json:"resources"`
	}
	if err := yaml.UnmarshalStrict(read(t, "kustomization.yaml"), &k); err != nil {
		t.Fatal(err)
	}
	for _, f := range k.Resources {
		for _, obj := range decode(t, f) {
			if err := c.Create(t.Context(), obj); err != nil {
				t.Fatalf("%s: creating %s %s: %v", f, obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName(), err)
			}
			if cm, ok := obj.(*corev1.ConfigMap); ok {
				if _, err := kwok.ParseCloudConfig([]byte(cm.Data["cloud-config.yaml"])); err != nil {
					t.Errorf("%s: %v", f, err)
				}
			}
		}
	}
	for _, a := range []authorizationv1.ResourceAttributes{
		{Verb: "get", Resource: "secrets", Namespace: "kube-system", Name: "any"},
		{Verb: "update", Resource: "configmaps", Namespace: "kube-system", Name: "cluster-autoscaler-priority-expander"},
		{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Namespace: "kube-system", Name: "kube-scheduler"},
		{Verb: "update", Resource: "pods", Namespace: "default", Name: "web-1"},
		{Verb: "update", Group: "apps", Resource: "deployments", Namespace: "default", Name: "web"},
		{Verb: "create", Resource: "configmaps", Namespace: "default"},
	} {
		if can(t, c, a) {
			t.Errorf("%s may %s %s %s/%s; least privilege forbids it", serviceAccount, a.Verb, a.Resource, a.Namespace, a.Name)
		}
	}
}

func can(t *testing.T, c client.Client, a authorizationv1.ResourceAttributes) bool {
	t.Helper()
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: serviceAccount, Groups: []string{"system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"},
		ResourceAttributes: &a,
	}}
	if err := c.Create(t.Context(), sar); err != nil {
		t.Fatal(err)
	}
	return sar.Status.Allowed
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// decode decodes every document of a manifest file strictly.
func decode(t *testing.T, path string) []client.Object {
	t.Helper()
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(read(t, path))))
	var objs []client.Object
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return objs
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		var meta metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &meta); err != nil || meta.Kind == "" {
			continue
		}
		obj, err := clientgoscheme.Scheme.New(meta.GroupVersionKind())
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if err := yaml.UnmarshalStrict(doc, obj); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		objs = append(objs, obj.(client.Object))
	}
}
