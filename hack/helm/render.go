package chartcheck

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	"helm.sh/helm/v4/pkg/chart/v2/lint"
	"helm.sh/helm/v4/pkg/chart/v2/lint/support"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/engine"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// KubeVersion is the Kubernetes version the chart is rendered for: the
// test control plane's.
const KubeVersion = "v1.36.3"

// Release names a rendering: the release's name and namespace.
type Release struct {
	Name, Namespace string
}

// Rendered is a chart rendered for one release.
type Rendered struct {
	// CRDs are the chart's crds/ directory.
	CRDs []*unstructured.Unstructured
	// Objects are the rendered templates' objects, by template file name
	// and then document order.
	Objects []*unstructured.Unstructured
	// Notes is NOTES.txt rendered.
	Notes string
}

// ReadValues reads a values file.
func ReadValues(path string) (map[string]any, error) {
	v, err := common.ReadValuesFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading values %s: %w", path, err)
	}
	return v, nil
}

// Render renders the chart in dir with values for the release, as helm
// template does against a cluster of KubeVersion.
func Render(dir string, rel Release, values map[string]any) (*Rendered, error) {
	ch, err := loader.Load(dir)
	if err != nil {
		return nil, fmt.Errorf("loading chart %s: %w", dir, err)
	}
	caps, err := capabilities()
	if err != nil {
		return nil, err
	}
	opts := common.ReleaseOptions{Name: rel.Name, Namespace: rel.Namespace, IsInstall: true, Revision: 1}
	vals, err := util.ToRenderValues(ch, values, opts, caps)
	if err != nil {
		return nil, fmt.Errorf("values: %w", err)
	}
	files, err := engine.Render(ch, vals)
	if err != nil {
		return nil, fmt.Errorf("rendering: %w", err)
	}
	out := &Rendered{}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if strings.HasSuffix(name, "NOTES.txt") {
			out.Notes = files[name]
			continue
		}
		if !strings.HasSuffix(name, ".yaml") {
			continue
		}
		objs, err := decode(name, []byte(files[name]))
		if err != nil {
			return nil, err
		}
		out.Objects = append(out.Objects, objs...)
	}
	for _, f := range ch.CRDObjects() {
		objs, err := decode(f.Filename, f.File.Data)
		if err != nil {
			return nil, err
		}
		out.CRDs = append(out.CRDs, objs...)
	}
	return out, nil
}

func capabilities() (*common.Capabilities, error) {
	kv, err := common.ParseKubeVersion(KubeVersion)
	if err != nil {
		return nil, err
	}
	caps := common.DefaultCapabilities.Copy()
	caps.KubeVersion = *kv
	return caps, nil
}

// decode splits a rendered file into its objects; empty documents are skipped.
func decode(name string, data []byte) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for i := 0; ; i++ {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s document %d: %w", name, i, err)
		}
		var m map[string]any
		if err := yaml.Unmarshal(doc, &m); err != nil {
			return nil, fmt.Errorf("%s document %d: %w\n%s", name, i, err, doc)
		}
		if len(m) == 0 {
			continue
		}
		out = append(out, &unstructured.Unstructured{Object: m})
	}
}

// Lint runs Helm's chart linter with values for the namespace and returns
// every message at warning level or above.
func Lint(dir, namespace string, values map[string]any) ([]support.Message, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(abs, "Chart.yaml")); err != nil {
		return nil, fmt.Errorf("linting %s: %w", dir, err)
	}
	caps, err := capabilities()
	if err != nil {
		return nil, err
	}
	res := lint.RunAll(abs, values, namespace, lint.WithKubeVersion(&caps.KubeVersion))
	var out []support.Message
	for _, m := range res.Messages {
		if m.Severity >= support.WarningSev {
			out = append(out, m)
		}
	}
	return out, nil
}
