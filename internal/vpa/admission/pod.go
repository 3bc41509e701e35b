package admission

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kscale/kscale/internal/vpa/boost"
	"github.com/kscale/kscale/internal/vpa/recommendation"
)

// Annotations the webhook sets on the pods it changes.
const (
	// UpdatesAnnotation lists what the webhook changed.
	UpdatesAnnotation = "vpaUpdates"
	// ObservedContainersAnnotation lists the containers the VPA observes.
	ObservedContainersAnnotation = "vpaObservedContainers"
)

// podReviewer sets a new pod's resources from its VPA.
type podReviewer struct {
	matcher *vpaMatcher
	reader  client.Reader
	metrics *Metrics
	// boost turns the CPU startup boost on (gate CPUStartupBoost).
	boost bool
	// maxBoost caps a boosted CPU request when not zero.
	maxBoost resource.Quantity
}

// review never rejects a pod: errors are logged and the pod is admitted
// unchanged.
func (p *podReviewer) review(ctx context.Context, req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	log := klog.FromContext(ctx)
	if req.Operation != admissionv1.Create || req.Kind.Version != "v1" {
		return allowed()
	}
	pod := &corev1.Pod{}
	if err := decodeObject(req.Object.Raw, pod); err != nil {
		log.Error(err, "Decoding pod; admitting it unchanged")
		p.metrics.pods.WithLabelValues("error").Inc()
		return allowed()
	}
	if pod.Namespace == "" {
		pod.Namespace = req.Namespace
	}
	resp, outcome, err := p.patch(ctx, pod)
	if err != nil {
		log.Error(err, "Applying the VPA recommendation; admitting the pod unchanged", "namespace", pod.Namespace, "generateName", pod.GenerateName, "pod", pod.Name)
		p.metrics.pods.WithLabelValues("error").Inc()
		return allowed()
	}
	p.metrics.pods.WithLabelValues(outcome).Inc()
	return resp
}

func (p *podReviewer) patch(ctx context.Context, pod *corev1.Pod) (*admissionv1.AdmissionResponse, string, error) {
	vpa, err := p.matcher.match(ctx, pod)
	if err != nil || vpa == nil {
		return allowed(), "unmatched", err
	}
	var ranges corev1.LimitRangeList
	if err := p.reader.List(ctx, &ranges, client.InNamespace(pod.Namespace)); err != nil {
		return nil, "", fmt.Errorf("listing LimitRanges: %w", err)
	}
	processed := recommendation.Process(pod, vpa.Status.Recommendation, vpa.Spec.ResourcePolicy, recommendation.MergeLimitRanges(ranges.Items))
	if UpdateMode(vpa) == vpav1.UpdateModeOff {
		// Matched only for its startup boost: no recommendation is applied.
		processed = recommendation.Result{}
	}
	recommended := len(processed.Containers) > 0
	var boosts map[string]string
	if p.boost && boost.Has(vpa) {
		if processed, boosts, err = boost.Pod(pod, vpa, processed, p.maxBoost); err != nil {
			return nil, "", fmt.Errorf("applying the startup boost of VPA %s: %w", vpa.Name, err)
		}
	}
	ops := PodPatch(pod, vpa, processed)
	for _, key := range slices.Sorted(maps.Keys(boosts)) {
		ops = append(ops, annotationOp(key, boosts[key]))
	}
	resp, err := withPatch(ops)
	if !recommended {
		return resp, "no-recommendation", err
	}
	return resp, "updated", err
}

// PodPatch returns the JSON patch that gives pod the processed resources and
// the webhook's annotations.
func PodPatch(pod *corev1.Pod, vpa *vpav1.VerticalPodAutoscaler, processed recommendation.Result) []patchOp {
	var ops []patchOp
	if pod.Annotations == nil {
		ops = append(ops, patchOp{Op: "add", Path: "/metadata/annotations", Value: map[string]string{}})
	}
	var updates []string
	for _, c := range processed.Containers {
		res := pod.Spec.Containers[c.Index].Resources
		reqOps, reqNames := recommendation.ResourcePatch(c.Index, "requests", res.Requests, c.Requests)
		limOps, limNames := recommendation.ResourcePatch(c.Index, "limits", res.Limits, c.Limits)
		ops = append(append(ops, reqOps...), limOps...)
		var changed []string
		for _, n := range reqNames {
			changed = append(changed, n+" request")
		}
		for _, n := range limNames {
			changed = append(changed, n+" limit")
		}
		if len(changed) > 0 {
			updates = append(updates, fmt.Sprintf("container %d: %s", c.Index, strings.Join(changed, ", ")))
		}
	}
	if len(updates) > 0 {
		ops = append(ops, annotationOp(UpdatesAnnotation, fmt.Sprintf("Pod resources updated by %s: %s", vpa.Name, strings.Join(updates, "; "))))
	}
	names := make([]string, 0, len(pod.Spec.Containers))
	for _, c := range pod.Spec.Containers {
		names = append(names, c.Name)
	}
	return append(ops, annotationOp(ObservedContainersAnnotation, strings.Join(names, ", ")))
}

func annotationOp(key, value string) patchOp {
	return patchOp{Op: "add", Path: "/metadata/annotations/" + recommendation.EscapePointer(key), Value: value}
}
