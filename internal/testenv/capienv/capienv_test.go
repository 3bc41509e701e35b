package capienv

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kscale/kscale/internal/cloudprovider/clusterapi/clusterapitest"
	"github.com/kscale/kscale/internal/testenv"
)

// TestVersionMatchesCAPIModule keeps the CRDs' Cluster API version and the
// pin that `make testbin` builds the manager from in step.
func TestVersionMatchesCAPIModule(t *testing.T) {
	for _, mod := range []string{clusterapitest.Module, clusterapitest.Module + "/api"} {
		testenv.ExpectPin(t, filepath.Join("..", "..", "..", "hack", "capi", "go.mod"), mod, clusterapitest.Version)
	}
}

func TestMissingManagerNamesTheCommand(t *testing.T) {
	t.Setenv(DirEnv, t.TempDir())
	_, err := Binary()
	testenv.ExpectMissingBinary(t, err, DirEnv)
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
