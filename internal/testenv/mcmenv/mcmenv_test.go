package mcmenv

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kscale/kscale/internal/cloudprovider/mcm/mcmtest"
	"github.com/kscale/kscale/internal/testenv"
	"github.com/kscale/kscale/internal/testenv/machinesim"
)

// TestVersionMatchesMCMModule keeps the CRDs' MCM version and the pin
// `make testbin` builds the controllers from in step.
func TestVersionMatchesMCMModule(t *testing.T) {
	testenv.ExpectPin(t, filepath.Join("..", "..", "..", "hack", "mcm", "go.mod"), mcmtest.Module, mcmtest.Version)
}

func TestMissingBinaryNamesTheCommand(t *testing.T) {
	t.Setenv(DirEnv, t.TempDir())
	_, err := Binary()
	testenv.ExpectMissingBinary(t, err, DirEnv)
}

// call sends a request to the cloud's API and decodes the answer.
func call(t *testing.T, h http.Handler, method, path string, body any) (int, map[string]any) {
	t.Helper()
	var in bytes.Buffer
	if body != nil {
		if err := json.NewEncoder(&in).Encode(body); err != nil {
			t.Fatal(err)
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequestWithContext(t.Context(), method, path, &in))
	out := map[string]any{}
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatalf("%s %s answered %q: %v", method, path, rec.Body.String(), err)
	}
	return rec.Code, out
}

func TestCloudAPI(t *testing.T) {
	client := fake.NewClientset()
	c, err := NewCloud(CloudConfig{Workload: client, Timing: machinesim.Timing{BootTime: -1}})
	if err != nil {
		t.Fatal(err)
	}
	c.Fail("ns/failing", &machinesim.Failure{Reason: "ResourceExhausted", Message: "no capacity in sim-1a"})
	h := c.Handler()
	steps := []struct {
		name, method, path string
		body               any
		wantCode           int
		want               map[string]any
	}{
		{"unknown instance", http.MethodGet, "/instances/ns/m1", nil, http.StatusNotFound, map[string]any{"code": "NotFound", "message": "no instance ns/m1"}},
		{"create", http.MethodPost, "/instances", createRequest{Namespace: "ns", Name: "m1", Class: "c", Deployment: "ok"}, http.StatusOK,
			map[string]any{"providerID": "sim:///ns/m1", "nodeName": "m1"}},
		{"create again returns the same", http.MethodPost, "/instances", createRequest{Namespace: "ns", Name: "m1", Class: "c", Deployment: "ok"}, http.StatusOK,
			map[string]any{"providerID": "sim:///ns/m1", "nodeName": "m1"}},
		{"a failing deployment's create", http.MethodPost, "/instances", createRequest{Namespace: "ns", Name: "f1", Class: "c", Deployment: "failing"},
			http.StatusServiceUnavailable, map[string]any{"code": "ResourceExhausted", "message": "no capacity in sim-1a"}},
		{"a create without a name", http.MethodPost, "/instances", createRequest{Namespace: "ns"}, http.StatusBadRequest, nil},
		{"get", http.MethodGet, "/instances/ns/m1", nil, http.StatusOK, map[string]any{"providerID": "sim:///ns/m1", "nodeName": "m1"}},
		{"list the class", http.MethodGet, "/instances?namespace=ns&class=c", nil, http.StatusOK,
			map[string]any{"instances": map[string]any{"sim:///ns/m1": "m1"}}},
		{"list another class", http.MethodGet, "/instances?namespace=ns&class=d", nil, http.StatusOK, map[string]any{"instances": map[string]any{}}},
		{"delete", http.MethodDelete, "/instances/ns/m1", nil, http.StatusOK, map[string]any{}},
		{"delete again", http.MethodDelete, "/instances/ns/m1", nil, http.StatusOK, map[string]any{}},
		{"gone", http.MethodGet, "/instances/ns/m1", nil, http.StatusNotFound, map[string]any{"code": "NotFound", "message": "no instance ns/m1"}},
	}
	for _, s := range steps {
		code, got := call(t, h, s.method, s.path, s.body)
		if code != s.wantCode {
			t.Fatalf("%s: status %d, want %d (%v)", s.name, code, s.wantCode, got)
		}
		if s.want == nil {
			continue
		}
		wantJSON, _ := json.Marshal(s.want)
		gotJSON, _ := json.Marshal(got)
		if !bytes.Equal(wantJSON, gotJSON) {
			t.Fatalf("%s: answer %s, want %s", s.name, gotJSON, wantJSON)
		}
	}
	if got := c.Deleted(); len(got) != 1 || got[0] != "ns/m1" {
		t.Errorf("Deleted() = %v, want [ns/m1] once", got)
	}
	if got := c.Rejected(); len(got) != 1 || got[0] != "ns/f1" {
		t.Errorf("Rejected() = %v, want [ns/f1]", got)
	}
}

func TestCloudRegistersBootedNodes(t *testing.T) {
	client := fake.NewClientset()
	c, err := NewCloud(CloudConfig{Workload: client, Timing: machinesim.Timing{BootTime: -1}})
	if err != nil {
		t.Fatal(err)
	}
	h := c.Handler()
	if code, got := call(t, h, http.MethodPost, "/instances", createRequest{Namespace: "ns", Name: "m1", Class: "c", Deployment: "d"}); code != http.StatusOK {
		t.Fatalf("create: %d %v", code, got)
	}
	if err := c.Reconcile(context.Background()); err != nil {
		t.Fatal(err)
	}
	node, err := client.CoreV1().Nodes().Get(t.Context(), "m1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if node.Spec.ProviderID != "sim:///ns/m1" {
		t.Errorf("node provider id %q, want sim:///ns/m1", node.Spec.ProviderID)
	}
	if got := c.Instances(); len(got) != 1 || got[0] != "ns/m1" {
		t.Errorf("Instances() = %v, want [ns/m1]", got)
	}
}
