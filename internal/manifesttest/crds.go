package manifesttest

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/yaml"

	"github.com/kscale/kscale/internal/testenv"
)

// Upstream modules whose CustomResourceDefinitions the manifests use, as
// their projects generate them (never written by hand).
const (
	// PrometheusOperator holds ServiceMonitor and PrometheusRule.
	PrometheusOperator = "github.com/prometheus-operator/prometheus-operator@v0.85.0"
	// CertManager holds Certificate and Issuer.
	CertManager = "github.com/cert-manager/cert-manager@v1.21.2"
)

// ModuleCRDs reads the CRDs in the files (paths relative to the module
// root) of the Go module module@version, downloaded through the module
// proxy (`go mod download`, verified against the checksum database).
func ModuleCRDs(tb testing.TB, module string, files ...string) []*apiextensionsv1.CustomResourceDefinition {
	tb.Helper()
	cmd := exec.CommandContext(tb.Context(), "go", "mod", "download", "-json", module)
	cmd.Dir = os.TempDir()
	cmd.Env = append(os.Environ(), "GO111MODULE=on")
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("go mod download %s: %v\n%s", module, err, out)
	}
	var info struct{ Dir, Error string }
	if err := json.Unmarshal(out, &info); err != nil || info.Dir == "" {
		tb.Fatalf("go mod download %s: %v %s", module, err, info.Error)
	}
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, name := range files {
		f := filepath.Join(info.Dir, filepath.FromSlash(name))
		raw, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.Unmarshal(raw, crd); err != nil || crd.Kind != "CustomResourceDefinition" {
			tb.Fatalf("%s: not a CRD (%v)", f, err)
		}
		crds = append(crds, crd)
	}
	return crds
}

// InstallCRDs creates the CRDs and waits until each is established.
func InstallCRDs(tb testing.TB, env *testenv.Env, crds []*apiextensionsv1.CustomResourceDefinition) {
	tb.Helper()
	cs, err := apiextensionsclient.NewForConfig(env.Config)
	if err != nil {
		tb.Fatal(err)
	}
	api := cs.ApiextensionsV1().CustomResourceDefinitions()
	for _, crd := range crds {
		if _, err := api.Create(tb.Context(), crd, metav1.CreateOptions{}); err != nil {
			tb.Fatalf("creating CRD %s: %v", crd.Name, err)
		}
	}
	for _, crd := range crds {
		err := wait.PollUntilContextTimeout(tb.Context(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			got, err := api.Get(ctx, crd.Name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			for _, c := range got.Status.Conditions {
				if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
					return true, nil
				}
			}
			return false, nil
		})
		if err != nil {
			tb.Fatalf("CRD %s not established: %v", crd.Name, err)
		}
	}
}
