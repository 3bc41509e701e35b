package capienv

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kscale/kscale/internal/cloudprovider/clusterapi/clusterapitest"
	"github.com/kscale/kscale/internal/testenv"
)

// TestVersionMatchesCAPIModule keeps the CRDs' Cluster API version and the
// pin that `make testbin` builds the manager from in step.
func TestVersionMatchesCAPIModule(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "hack", "capi", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	pinned := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) > 0 && f[0] == "require" {
			f = f[1:]
		}
		if len(f) >= 2 {
			pinned[f[0]] = f[1]
		}
	}
	for _, mod := range []string{clusterapitest.Module, clusterapitest.Module + "/api"} {
		if pinned[mod] != clusterapitest.Version {
			t.Errorf("hack/capi/go.mod pins %s at %q, want %s", mod, pinned[mod], clusterapitest.Version)
		}
	}
}

func TestMissingManagerNamesTheCommand(t *testing.T) {
	t.Setenv(DirEnv, t.TempDir())
	_, err := Binary()
	var missing *testenv.MissingBinaryError
	if !errors.As(err, &missing) {
		t.Fatalf("Binary() error = %v, want MissingBinaryError", err)
	}
	if !strings.Contains(err.Error(), "make testbin") || !strings.Contains(err.Error(), DirEnv) {
		t.Errorf("error %q does not name `make testbin` and %s", err, DirEnv)
	}
}

func TestDecodeWebhooks(t *testing.T) {
	const mutating = "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata:\n  name: m\n" +
		"webhooks:\n- name: a.example.com\n  admissionReviewVersions: [v1]\n  sideEffects: None\n" +
		"  clientConfig:\n    service: {name: s, namespace: system, path: /mutate-a}\n"
	const validating = "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: v\nwebhooks: []\n"
	tests := []struct {
		name          string
		in            string
		wantM, wantV  int
		wantErrSubstr string
	}{
		{name: "both kinds", in: "---\n" + mutating + "---\n" + validating, wantM: 1, wantV: 1},
		{name: "empty documents", in: "---\n---\n", wantM: 0, wantV: 0},
		{name: "another kind", in: "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n", wantErrSubstr: `unexpected kind "Service"`},
		{name: "unknown field", in: mutating + "bogus: 1\n", wantErrSubstr: "bogus"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, v, err := decodeWebhooks([]byte(tt.in))
			if tt.wantErrSubstr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErrSubstr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErrSubstr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(m) != tt.wantM || len(v) != tt.wantV {
				t.Fatalf("got %d mutating, %d validating; want %d, %d", len(m), len(v), tt.wantM, tt.wantV)
			}
		})
	}
}

func TestClientConfigPointsAtTheManager(t *testing.T) {
	path := "/mutate-cluster-x-k8s-io-v1beta2-machine"
	m := &Manager{env: &testenv.Env{CAData: []byte("ca")}, webhookPort: 9443}
	got := m.clientConfig(serviceConfig(path))
	if got.URL == nil || *got.URL != "https://127.0.0.1:9443"+path || got.Service != nil || string(got.CABundle) != "ca" {
		t.Errorf("clientConfig = %+v, want the loopback URL with the path and the CA", got)
	}
}

func TestStandInCRDsCarryTheContract(t *testing.T) {
	crds := StandInCRDs()
	names := map[string]bool{}
	for _, crd := range crds {
		names[crd.Name] = true
		if crd.Labels[contractLabel] != "v1beta1" {
			t.Errorf("CRD %s has no %s label", crd.Name, contractLabel)
		}
	}
	for _, want := range []string{"simmachinetemplates.infrastructure.kscale.test", "simmachines.infrastructure.kscale.test", "simcontrolplanes.infrastructure.kscale.test"} {
		if !names[want] {
			t.Errorf("no CRD %s among %v", want, names)
		}
	}
}
