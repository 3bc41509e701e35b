// Package manifesttest checks the deployment manifests under deploy/ against
// a real API server: every object of a kustomization decodes strictly (no
// unknown fields), carries a namespace when its kind is namespaced, and is
// accepted by kube-apiserver; and a ServiceAccount's RBAC allows what its
// component needs and nothing the test lists as forbidden.
package manifesttest

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/kscale/kscale/internal/testenv"
)

// clusterScoped lists the kinds the manifests use that have no namespace.
var clusterScoped = map[string]bool{
	"ClusterRole": true, "ClusterRoleBinding": true, "CustomResourceDefinition": true, "APIService": true,
	"MutatingWebhookConfiguration": true, "ValidatingWebhookConfiguration": true, "Namespace": true, "PriorityClass": true,
}

// kustomization is the part of a kustomization.yaml these tests read.
type kustomization struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Resources  []string `json:"resources"`
}

// Load decodes every object of dir/kustomization.yaml: its resource files,
// and the kustomizations of resource directories, recursively; a file
// reached twice is read once; a resource directory that contains dir (a
// cycle kustomize refuses) fails the test. Unknown fields of kinds client-go or
// apiextensions know fail the test, with the file and document index.
func Load(tb testing.TB, dir string) []*unstructured.Unstructured {
	tb.Helper()
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme} {
		if err := add(scheme); err != nil {
			tb.Fatal(err)
		}
	}
	l := &loader{tb: tb, scheme: scheme, seen: map[string]bool{}}
	l.kustomization(dir)
	return l.objs
}

type loader struct {
	tb     testing.TB
	scheme *runtime.Scheme
	seen   map[string]bool
	objs   []*unstructured.Unstructured
}

func (l *loader) kustomization(dir string) {
	l.tb.Helper()
	path := filepath.Join(dir, "kustomization.yaml")
	raw, err := os.ReadFile(path)
	if err != nil {
		l.tb.Fatal(err)
	}
	var k kustomization
	if err := yaml.UnmarshalStrict(raw, &k); err != nil {
		l.tb.Fatalf("%s: %v", path, err)
	}
	for _, r := range k.Resources {
		res := filepath.Clean(filepath.Join(dir, r))
		if l.seen[res] {
			continue
		}
		l.seen[res] = true
		if info, err := os.Stat(res); err == nil && info.IsDir() {
			if within(dir, res) {
				l.tb.Errorf("%s: resource %s contains this kustomization's directory, a cycle kustomize refuses", path, r)
				continue
			}
			l.kustomization(res)
			continue
		}
		l.file(res)
	}
}

// within reports whether dir is root or a directory below it.
func within(dir, root string) bool {
	d, errD := filepath.Abs(dir)
	r, errR := filepath.Abs(root)
	if errD != nil || errR != nil {
		return false
	}
	rel, err := filepath.Rel(r, d)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

func (l *loader) file(path string) {
	l.tb.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		l.tb.Fatal(err)
	}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(raw)))
	for i := 0; ; i++ {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			l.tb.Fatalf("%s document %d: %v", path, i, err)
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		obj, err := l.decode(doc)
		if err != nil {
			l.tb.Fatalf("%s document %d: %v", path, i, err)
		}
		if obj.GetNamespace() == "" && !clusterScoped[obj.GetKind()] {
			l.tb.Errorf("%s document %d (%s %s): namespace missing", path, i, obj.GetKind(), obj.GetName())
		}
		l.objs = append(l.objs, obj)
	}
}

// decode checks a document strictly against its typed kind when the scheme
// knows it, and returns it as an unstructured object.
func (l *loader) decode(doc []byte) (*unstructured.Unstructured, error) {
	var meta metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &meta); err != nil {
		return nil, err
	}
	if meta.Kind == "" || meta.APIVersion == "" {
		return nil, errors.New("apiVersion and kind are required")
	}
	if typed, err := l.scheme.New(meta.GroupVersionKind()); err == nil {
		if err := yaml.UnmarshalStrict(doc, typed); err != nil {
			return nil, err
		}
	}
	var m map[string]any
	if err := yaml.Unmarshal(doc, &m); err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: m}, nil
}

// Create creates every object on the environment's API server, in order.
func Create(tb testing.TB, env *testenv.Env, objs []*unstructured.Unstructured) {
	tb.Helper()
	c, err := client.New(env.Config, client.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	for _, obj := range objs {
		if err := c.Create(tb.Context(), obj.DeepCopy()); err != nil {
			tb.Fatalf("creating %s %s: %v", obj.GetKind(), client.ObjectKeyFromObject(obj), err)
		}
	}
}
