package admission

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	sigsjson "sigs.k8s.io/json"

	"github.com/kscale/kscale/internal/vpa/recommendation"
)

// maxReviewBytes bounds the body of an AdmissionReview (the API server
// limits objects to about 3 MiB).
const maxReviewBytes = 8 << 20

// patchOp is one JSON-patch operation.
type patchOp = recommendation.PatchOp

// reviewer handles one kind of admission request.
type reviewer interface {
	review(ctx context.Context, req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse
}

// Handler serves AdmissionReview v1 requests for pods and VPAs.
type Handler struct {
	pods reviewer
	vpas reviewer
	log  klog.Logger
	m    *upstreamMetrics
}

// ServeHTTP decodes the review, dispatches it by resource and writes the
// response. Malformed requests get HTTP 400.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx := klog.NewContext(r.Context(), h.log)
	timer := h.m.timer()
	if r.Method != http.MethodPost {
		http.Error(w, "only POST is served", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxReviewBytes))
	if err != nil {
		http.Error(w, "reading body: "+err.Error(), http.StatusBadRequest)
		return
	}
	review := &admissionv1.AdmissionReview{}
	if err := json.Unmarshal(body, review); err != nil || review.Request == nil {
		http.Error(w, fmt.Sprintf("decoding AdmissionReview v1: %v", err), http.StatusBadRequest)
		return
	}
	timer.step("read_request")
	resp := h.dispatch(ctx, review.Request)
	timer.step("admit")
	resp.UID = review.Request.UID
	out := admissionv1.AdmissionReview{TypeMeta: review.TypeMeta, Response: resp}
	timer.step("build_response")
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(out); err != nil {
		h.log.Error(err, "Writing admission response")
	}
	timer.step("write_response")
	timer.done(review.Request, resp)
}

func (h *Handler) dispatch(ctx context.Context, req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	switch {
	case req.Resource.Group == "" && req.Resource.Resource == "pods" && req.SubResource == "":
		return h.pods.review(ctx, req)
	case req.Resource.Group == "autoscaling.k8s.io" && req.Resource.Resource == "verticalpodautoscalers" && req.SubResource == "":
		return h.vpas.review(ctx, req)
	default:
		return allowed()
	}
}

// decodeObject decodes an object case-sensitively, as the API server does,
// so that the JSON patches built from it address the fields that exist.
func decodeObject(raw []byte, out any) error {
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(raw, out); err != nil {
		return fmt.Errorf("decoding object: %w", err)
	}
	return nil
}

func allowed() *admissionv1.AdmissionResponse {
	return &admissionv1.AdmissionResponse{Allowed: true}
}

// withPatch returns an allowing response carrying a JSON patch.
func withPatch(ops []patchOp) (*admissionv1.AdmissionResponse, error) {
	if len(ops) == 0 {
		return allowed(), nil
	}
	raw, err := json.Marshal(ops)
	if err != nil {
		return nil, fmt.Errorf("encoding patch: %w", err)
	}
	pt := admissionv1.PatchTypeJSONPatch
	return &admissionv1.AdmissionResponse{Allowed: true, Patch: raw, PatchType: &pt}, nil
}

func denied(msg string) *admissionv1.AdmissionResponse {
	return &admissionv1.AdmissionResponse{Allowed: false, Result: &metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusUnprocessableEntity, Reason: metav1.StatusReasonInvalid, Message: msg,
	}}
}
