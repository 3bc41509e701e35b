package admission

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kscale/kscale/internal/vpa/features"
)

func vpaHandler(t testing.TB) *Handler {
	m, err := NewMetrics(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	return &Handler{vpas: &vpaReviewer{metrics: m}, log: klog.Background()}
}

// review sends a VPA CREATE review with object raw through the handler.
func review(t testing.TB, h *Handler, raw []byte) (*admissionv1.AdmissionResponse, int) {
	t.Helper()
	return send(t, h, admissionv1.Create, raw, nil)
}

// reviewOperation sends a VPA review of operation op, failing the test
// unless the handler answers 200.
func reviewOperation(t testing.TB, h *Handler, op admissionv1.Operation, raw, old []byte) *admissionv1.AdmissionResponse {
	t.Helper()
	resp, code := send(t, h, op, raw, old)
	if code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	return resp
}

func send(t testing.TB, h *Handler, op admissionv1.Operation, raw, old []byte) (*admissionv1.AdmissionResponse, int) {
	t.Helper()
	in := admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID:       "uid-1",
			Resource:  metav1.GroupVersionResource{Group: "autoscaling.k8s.io", Version: "v1", Resource: "verticalpodautoscalers"},
			Operation: op, Object: runtime.RawExtension{Raw: raw}, OldObject: runtime.RawExtension{Raw: old},
		},
	}
	body, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequestWithContext(t.Context(), http.MethodPost, "/", bytes.NewReader(body)))
	if rec.Code != http.StatusOK {
		return nil, rec.Code
	}
	var out admissionv1.AdmissionReview
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || out.Response == nil {
		t.Fatalf("undecodable response %q: %v", rec.Body.String(), err)
	}
	return out.Response, rec.Code
}

func TestHandlerRejectsMalformedRequests(t *testing.T) {
	h := vpaHandler(t)
	for _, body := range []string{"", "{", `{"request":null}`, `[]`} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequestWithContext(t.Context(), http.MethodPost, "/", strings.NewReader(body)))
		if rec.Code != http.StatusBadRequest {
			t.Errorf("body %q: status %d, want 400", body, rec.Code)
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequestWithContext(t.Context(), http.MethodGet, "/", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("GET: status %d, want 405", rec.Code)
	}
}

func TestVPADefaultingPatch(t *testing.T) {
	raw := []byte(`{"apiVersion":"autoscaling.k8s.io/v1","kind":"VerticalPodAutoscaler","metadata":{"name":"v"},` +
		`"spec":{"targetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"}}}`)
	resp, _ := review(t, vpaHandler(t), raw)
	if !resp.Allowed || resp.UID != "uid-1" {
		t.Fatalf("response = %+v, want allowed for uid-1", resp)
	}
	patch, err := jsonpatch.DecodePatch(resp.Patch)
	if err != nil {
		t.Fatal(err)
	}
	out, err := patch.Apply(raw)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"updatePolicy":{"updateMode":"Recreate"}`) {
		t.Errorf("patched VPA = %s, want updatePolicy.updateMode Recreate", out)
	}
	auto := []byte(`{"spec":{"targetRef":{"kind":"Deployment","name":"web"},"updatePolicy":{"updateMode":"Auto"}}}`)
	if resp, _ := review(t, vpaHandler(t), auto); !resp.Allowed || len(resp.Warnings) != 1 {
		t.Errorf("Auto: allowed %v, warnings %q; want allowed with one deprecation warning", resp.Allowed, resp.Warnings)
	}
}

// FuzzVPAReview feeds arbitrary VPA objects to the webhook: it must answer
// every one, reject with a message or allow with a patch that applies.
func FuzzVPAReview(f *testing.F) {
	for _, seed := range []string{
		`{"spec":{"targetRef":{"kind":"Deployment","name":"web"}}}`,
		`{"spec":{"updatePolicy":{"updateMode":"Initial","minReplicas":0}}}`,
		`{"spec":{"targetRef":{"kind":"Deployment","name":"w"},"resourcePolicy":{"containerPolicies":[{"containerName":"*","minAllowed":{"cpu":"2"},"maxAllowed":{"cpu":"1m"}}]}}}`,
		`{"spec":{"resourcePolicy":{"containerPolicies":[{"mode":"Off","controlledValues":"RequestsAndLimits","controlledResources":["gpu"]}]}}}`,
		`{"spec":{"recommenders":[{"name":"a"},{"name":"b"}],"startupBoost":{}}}`,
		`{"spec":{"resourcePolicy":{"containerPolicies":[{"containerName":"a","maxAllowed":{"memory":"0.5"}}]}}}`,
		`null`, `"x"`, `{"spec":[]}`,
		`{"spec":{"targetRef":{"kind":"Deployment","name":"w"},"updatePolicy":{"updateMode":"InPlace","evictAfterOOMSeconds":0}}}`,
		`{"spec":{"targetRef":{"kind":"Deployment","name":"w"},"startupBoost":{"cpu":{"type":"Factor","factor":0}}}}`,
		`{"spec":{"resourcePolicy":{"containerPolicies":[{"containerName":"a","oomBumpUpRatio":"0.5","oomMinBumpUp":"-1","memoryAggregationIntervalCount":0}]}}}`,
	} {
		f.Add([]byte(seed))
	}
	off := vpaHandler(f)
	on := vpaHandler(f)
	on.vpas.(*vpaReviewer).gates = features.Gates{InPlace: true, CPUStartupBoost: true, PerVPAConfig: true}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return // the API server only sends JSON objects
		}
		// Odd lengths go to a webhook with every feature gate on.
		h := off
		if len(raw)%2 == 1 {
			h = on
		}
		resp, code := review(t, h, raw)
		if code != http.StatusOK {
			t.Fatalf("status %d for %s", code, raw)
		}
		if !resp.Allowed {
			if resp.Result == nil || resp.Result.Message == "" {
				t.Fatalf("rejection without a message for %s", raw)
			}
			return
		}
		if len(resp.Patch) > 0 {
			patch, err := jsonpatch.DecodePatch(resp.Patch)
			if err != nil {
				t.Fatalf("undecodable patch %s: %v", resp.Patch, err)
			}
			if _, err := patch.Apply(raw); err != nil {
				t.Fatalf("patch %s does not apply to %s: %v", resp.Patch, raw, err)
			}
		}
	})
}
