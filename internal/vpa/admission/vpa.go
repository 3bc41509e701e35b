package admission

import (
	"context"
	"errors"
	"fmt"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
)

// vpaReviewer validates and defaults VerticalPodAutoscaler objects.
type vpaReviewer struct {
	metrics *Metrics
}

func (v *vpaReviewer) review(_ context.Context, req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update {
		return allowed()
	}
	vpa := &vpav1.VerticalPodAutoscaler{}
	if err := decodeObject(req.Object.Raw, vpa); err != nil {
		v.metrics.vpas.WithLabelValues("rejected").Inc()
		return denied(fmt.Sprintf("decoding VerticalPodAutoscaler: %v", err))
	}
	if err := ValidateVPA(vpa, req.Operation == admissionv1.Create); err != nil {
		v.metrics.vpas.WithLabelValues("rejected").Inc()
		return denied(err.Error())
	}
	resp, err := withPatch(defaultVPA(vpa))
	if err != nil {
		v.metrics.vpas.WithLabelValues("rejected").Inc()
		return denied(err.Error())
	}
	if vpa.Spec.UpdatePolicy != nil && vpa.Spec.UpdatePolicy.UpdateMode != nil && *vpa.Spec.UpdatePolicy.UpdateMode == modeAuto {
		resp.Warnings = append(resp.Warnings, "spec.updatePolicy.updateMode: Auto is deprecated; use Recreate, Initial or InPlaceOrRecreate")
	}
	v.metrics.vpas.WithLabelValues("admitted").Inc()
	return resp
}

// defaultVPA sets updatePolicy.updateMode Recreate when updatePolicy is unset.
func defaultVPA(vpa *vpav1.VerticalPodAutoscaler) []patchOp {
	if vpa.Spec.UpdatePolicy != nil {
		return nil
	}
	return []patchOp{{Op: "add", Path: "/spec/updatePolicy", Value: map[string]string{"updateMode": string(vpav1.UpdateModeRecreate)}}}
}

// modeAuto is the deprecated alias of Recreate; it is still accepted, with a
// warning (the upstream constant is marked deprecated).
const modeAuto vpav1.UpdateMode = "Auto"

// supportedModes are the update modes kscale implements. InPlace needs the
// upstream InPlace feature gate, which kscale does not offer.
var supportedModes = []vpav1.UpdateMode{
	vpav1.UpdateModeOff, vpav1.UpdateModeInitial, vpav1.UpdateModeRecreate,
	modeAuto, vpav1.UpdateModeInPlaceOrRecreate,
}

// ValidateVPA checks a VPA; the error names every invalid field. targetRef
// is required when create is true.
func ValidateVPA(vpa *vpav1.VerticalPodAutoscaler, create bool) error {
	var errs []error
	spec := &vpa.Spec
	switch {
	case create && spec.TargetRef == nil:
		errs = append(errs, errors.New("spec.targetRef: required"))
	case spec.TargetRef != nil && (spec.TargetRef.Kind == "" || spec.TargetRef.Name == ""):
		errs = append(errs, errors.New("spec.targetRef: kind and name are required"))
	}
	if p := spec.UpdatePolicy; p != nil {
		errs = append(errs, validateUpdatePolicy(p)...)
	}
	if len(spec.Recommenders) > 1 {
		errs = append(errs, fmt.Errorf("spec.recommenders: at most one recommender is supported, got %d", len(spec.Recommenders)))
	}
	if spec.StartupBoost != nil {
		errs = append(errs, errors.New("spec.startupBoost: CPU startup boost (gate CPUStartupBoost) is not supported"))
	}
	if spec.ResourcePolicy != nil {
		for i := range spec.ResourcePolicy.ContainerPolicies {
			errs = append(errs, validateContainerPolicy(i, &spec.ResourcePolicy.ContainerPolicies[i])...)
		}
	}
	return errors.Join(errs...)
}

func validateUpdatePolicy(p *vpav1.PodUpdatePolicy) []error {
	var errs []error
	switch {
	case p.UpdateMode == nil:
		errs = append(errs, errors.New("spec.updatePolicy.updateMode: required when updatePolicy is set"))
	case !containsMode(*p.UpdateMode):
		errs = append(errs, fmt.Errorf("spec.updatePolicy.updateMode: unsupported value %q; supported: %s", *p.UpdateMode, modeList()))
	}
	if p.MinReplicas != nil && *p.MinReplicas <= 0 {
		errs = append(errs, fmt.Errorf("spec.updatePolicy.minReplicas: must be greater than 0, got %d", *p.MinReplicas))
	}
	if p.EvictAfterOOMSeconds != nil {
		errs = append(errs, errors.New("spec.updatePolicy.evictAfterOOMSeconds: needs feature gate PerVPAConfig, which is off"))
	}
	for i, r := range p.EvictionRequirements {
		if r == nil {
			continue
		}
		if r.ChangeRequirement != vpav1.TargetHigherThanRequests && r.ChangeRequirement != vpav1.TargetLowerThanRequests {
			errs = append(errs, fmt.Errorf("spec.updatePolicy.evictionRequirements[%d].changeRequirement: unsupported value %q", i, r.ChangeRequirement))
		}
		for j, name := range r.Resources {
			if name != corev1.ResourceCPU && name != corev1.ResourceMemory {
				errs = append(errs, fmt.Errorf("spec.updatePolicy.evictionRequirements[%d].resources[%d]: only cpu and memory are supported, got %q", i, j, name))
			}
		}
	}
	return errs
}

func containsMode(m vpav1.UpdateMode) bool {
	for _, s := range supportedModes {
		if s == m {
			return true
		}
	}
	return false
}

func modeList() string {
	names := make([]string, len(supportedModes))
	for i, m := range supportedModes {
		names[i] = string(m)
	}
	return strings.Join(names, ", ")
}

func validateContainerPolicy(i int, cp *vpav1.ContainerResourcePolicy) []error {
	field := fmt.Sprintf("spec.resourcePolicy.containerPolicies[%d]", i)
	var errs []error
	if cp.ContainerName == "" {
		errs = append(errs, fmt.Errorf("%s.containerName: required", field))
	}
	if m := cp.Mode; m != nil && *m != vpav1.ContainerScalingModeAuto && *m != vpav1.ContainerScalingModeOff {
		errs = append(errs, fmt.Errorf("%s.mode: unsupported value %q; supported: Auto, Off", field, *m))
	}
	if v := cp.ControlledValues; v != nil {
		switch {
		case *v != vpav1.ContainerControlledValuesRequestsAndLimits && *v != vpav1.ContainerControlledValuesRequestsOnly:
			errs = append(errs, fmt.Errorf("%s.controlledValues: unsupported value %q; supported: RequestsAndLimits, RequestsOnly", field, *v))
		case *v == vpav1.ContainerControlledValuesRequestsAndLimits && cp.Mode != nil && *cp.Mode == vpav1.ContainerScalingModeOff:
			errs = append(errs, fmt.Errorf("%s.controlledValues: RequestsAndLimits cannot be set together with mode Off", field))
		}
	}
	if cp.ControlledResources != nil {
		for j, name := range *cp.ControlledResources {
			if name != corev1.ResourceCPU && name != corev1.ResourceMemory {
				errs = append(errs, fmt.Errorf("%s.controlledResources[%d]: only cpu and memory are supported, got %q", field, j, name))
			}
		}
	}
	errs = append(errs, validateQuantities(field+".minAllowed", cp.MinAllowed)...)
	errs = append(errs, validateQuantities(field+".maxAllowed", cp.MaxAllowed)...)
	for name, lo := range cp.MinAllowed {
		if hi, ok := cp.MaxAllowed[name]; ok && lo.Cmp(hi) > 0 {
			errs = append(errs, fmt.Errorf("%s: minAllowed %s %s is greater than maxAllowed %s", field, name, lo.String(), hi.String()))
		}
	}
	if cp.OOMBumpUpRatio != nil || cp.OOMMinBumpUp != nil || cp.MemoryAggregationIntervalSeconds != nil || cp.MemoryAggregationIntervalCount != nil {
		errs = append(errs, fmt.Errorf("%s: oomBumpUpRatio, oomMinBumpUp and memoryAggregationInterval* need feature gate PerVPAConfig, which is off", field))
	}
	if cp.StartupBoost != nil {
		errs = append(errs, fmt.Errorf("%s.startupBoost: CPU startup boost (gate CPUStartupBoost) is not supported", field))
	}
	return errs
}

// validateQuantities checks that CPU is whole millicores and memory whole
// bytes, and that nothing is negative.
func validateQuantities(field string, list corev1.ResourceList) []error {
	var errs []error
	for name, q := range list {
		switch {
		case q.Sign() < 0:
			errs = append(errs, fmt.Errorf("%s.%s: must not be negative, got %s", field, name, q.String()))
		case name == corev1.ResourceCPU && !wholeMilli(q):
			errs = append(errs, fmt.Errorf("%s.cpu: must be a whole number of millicores, got %s", field, q.String()))
		case name == corev1.ResourceMemory && !wholeUnits(q):
			errs = append(errs, fmt.Errorf("%s.memory: must be a whole number of bytes, got %s", field, q.String()))
		case name != corev1.ResourceCPU && name != corev1.ResourceMemory:
			errs = append(errs, fmt.Errorf("%s: only cpu and memory are supported, got %q", field, name))
		}
	}
	return errs
}

func wholeMilli(q resource.Quantity) bool {
	return q.Cmp(*resource.NewMilliQuantity(q.MilliValue(), q.Format)) == 0
}

func wholeUnits(q resource.Quantity) bool {
	return q.Cmp(*resource.NewQuantity(q.Value(), q.Format)) == 0
}
