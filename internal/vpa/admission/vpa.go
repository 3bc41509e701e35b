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
	"k8s.io/component-base/featuregate"

	"github.com/kscale/kscale/internal/vpa/features"
)

// vpaReviewer validates and defaults VerticalPodAutoscaler objects.
type vpaReviewer struct {
	metrics *Metrics
	gates   features.Gates
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
	var old *vpav1.VerticalPodAutoscaler
	if req.Operation == admissionv1.Update {
		old = &vpav1.VerticalPodAutoscaler{}
		if err := decodeObject(req.OldObject.Raw, old); err != nil {
			v.metrics.vpas.WithLabelValues("rejected").Inc()
			return denied(fmt.Sprintf("decoding the old VerticalPodAutoscaler: %v", err))
		}
	}
	if err := ValidateVPA(vpa, old, v.gates); err != nil {
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

// supportedModes are upstream's update modes. InPlace needs the InPlace
// feature gate.
var supportedModes = []vpav1.UpdateMode{
	vpav1.UpdateModeOff, vpav1.UpdateModeInitial, vpav1.UpdateModeRecreate,
	modeAuto, vpav1.UpdateModeInPlaceOrRecreate, vpav1.UpdateModeInPlace,
}

// gatedUse is which gated fields a VPA may use: those whose gate is on, and,
// on an update, those the old object already used (upstream ratchets so
// that VPAs created while a gate was on stay editable).
type gatedUse struct {
	inPlace, startupBoost, perVPAConfig bool
}

func allowedFor(old *vpav1.VerticalPodAutoscaler, gates features.Gates) gatedUse {
	a := gatedUse{inPlace: gates.InPlace, startupBoost: gates.CPUStartupBoost, perVPAConfig: gates.PerVPAConfig}
	if old == nil {
		return a
	}
	a.inPlace = a.inPlace || UsesInPlace(old)
	a.startupBoost = a.startupBoost || UsesStartupBoost(old)
	a.perVPAConfig = a.perVPAConfig || UsesPerVPAConfig(old)
	return a
}

// UsesInPlace reports whether the VPA is in update mode InPlace.
func UsesInPlace(vpa *vpav1.VerticalPodAutoscaler) bool {
	p := vpa.Spec.UpdatePolicy
	return p != nil && p.UpdateMode != nil && *p.UpdateMode == vpav1.UpdateModeInPlace
}

// UsesStartupBoost reports whether the VPA sets a startup boost, for the
// pod or for a container.
func UsesStartupBoost(vpa *vpav1.VerticalPodAutoscaler) bool {
	if vpa.Spec.StartupBoost != nil && vpa.Spec.StartupBoost.CPU != nil {
		return true
	}
	if rp := vpa.Spec.ResourcePolicy; rp != nil {
		for i := range rp.ContainerPolicies {
			if rp.ContainerPolicies[i].StartupBoost != nil {
				return true
			}
		}
	}
	return false
}

// UsesPerVPAConfig reports whether the VPA sets a field of gate PerVPAConfig.
func UsesPerVPAConfig(vpa *vpav1.VerticalPodAutoscaler) bool {
	if p := vpa.Spec.UpdatePolicy; p != nil && p.EvictAfterOOMSeconds != nil {
		return true
	}
	if rp := vpa.Spec.ResourcePolicy; rp != nil {
		for i := range rp.ContainerPolicies {
			if usesPerVPAConfig(&rp.ContainerPolicies[i]) {
				return true
			}
		}
	}
	return false
}

func usesPerVPAConfig(cp *vpav1.ContainerResourcePolicy) bool {
	return cp.OOMBumpUpRatio != nil || cp.OOMMinBumpUp != nil || cp.MemoryAggregationIntervalSeconds != nil || cp.MemoryAggregationIntervalCount != nil
}

// ValidateVPA checks a VPA against the feature gates; the error names
// every invalid field. old is the stored object on an update and nil on a
// create (targetRef is then required). A field whose gate is off is
// accepted on an update when old already used it, as upstream does.
func ValidateVPA(vpa, old *vpav1.VerticalPodAutoscaler, gates features.Gates) error {
	var errs []error
	spec := &vpa.Spec
	allow := allowedFor(old, gates)
	switch {
	case old == nil && spec.TargetRef == nil:
		errs = append(errs, errors.New("spec.targetRef: required"))
	case spec.TargetRef != nil && (spec.TargetRef.Kind == "" || spec.TargetRef.Name == ""):
		errs = append(errs, errors.New("spec.targetRef: kind and name are required"))
	}
	if p := spec.UpdatePolicy; p != nil {
		errs = append(errs, validateUpdatePolicy(p, allow)...)
	}
	if len(spec.Recommenders) > 1 {
		errs = append(errs, fmt.Errorf("spec.recommenders: at most one recommender is supported, got %d", len(spec.Recommenders)))
	}
	if spec.StartupBoost != nil {
		errs = append(errs, validateStartupBoost("spec.startupBoost", spec.StartupBoost, allow)...)
	}
	if spec.ResourcePolicy != nil {
		for i := range spec.ResourcePolicy.ContainerPolicies {
			errs = append(errs, validateContainerPolicy(i, &spec.ResourcePolicy.ContainerPolicies[i], allow)...)
		}
	}
	return errors.Join(errs...)
}

func validateUpdatePolicy(p *vpav1.PodUpdatePolicy, allow gatedUse) []error {
	var errs []error
	switch {
	case p.UpdateMode == nil:
		errs = append(errs, errors.New("spec.updatePolicy.updateMode: required when updatePolicy is set"))
	case !containsMode(*p.UpdateMode):
		errs = append(errs, fmt.Errorf("spec.updatePolicy.updateMode: unsupported value %q; supported: %s", *p.UpdateMode, modeList()))
	case *p.UpdateMode == vpav1.UpdateModeInPlace && !allow.inPlace:
		errs = append(errs, fmt.Errorf("spec.updatePolicy.updateMode: InPlace needs feature gate %s, which is off (--feature-gates=%s=true on the admission controller and the updater)", features.InPlace, features.InPlace))
	}
	if p.MinReplicas != nil && *p.MinReplicas <= 0 {
		errs = append(errs, fmt.Errorf("spec.updatePolicy.minReplicas: must be greater than 0, got %d", *p.MinReplicas))
	}
	if s := p.EvictAfterOOMSeconds; s != nil {
		switch {
		case !allow.perVPAConfig:
			errs = append(errs, gateOff("spec.updatePolicy.evictAfterOOMSeconds", features.PerVPAConfig))
		case *s < 1:
			errs = append(errs, fmt.Errorf("spec.updatePolicy.evictAfterOOMSeconds: must be at least 1, got %d", *s))
		}
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

// gateOff is the error for a field whose feature gate is off.
func gateOff(field string, gate featuregate.Feature) error {
	return fmt.Errorf("%s: needs feature gate %s, which is off (--feature-gates=%s=true)", field, gate, gate)
}

func validateContainerPolicy(i int, cp *vpav1.ContainerResourcePolicy, allow gatedUse) []error {
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
	errs = append(errs, validatePerVPAConfig(field, cp, allow)...)
	if cp.StartupBoost != nil {
		errs = append(errs, validateStartupBoost(field+".startupBoost", cp.StartupBoost, allow)...)
	}
	return errs
}

// validatePerVPAConfig checks a container policy's PerVPAConfig fields
// with upstream's ranges: ratio ≥ 1, minimum bump ≥ 0, seconds ≥ 1,
// count ≥ 1.
func validatePerVPAConfig(field string, cp *vpav1.ContainerResourcePolicy, allow gatedUse) []error {
	if !usesPerVPAConfig(cp) {
		return nil
	}
	if !allow.perVPAConfig {
		return []error{gateOff(field+": oomBumpUpRatio, oomMinBumpUp and memoryAggregationInterval{Seconds,Count}", features.PerVPAConfig)}
	}
	var errs []error
	if r := cp.OOMBumpUpRatio; r != nil && r.MilliValue() < 1000 {
		errs = append(errs, fmt.Errorf("%s.oomBumpUpRatio: must be at least 1, got %s", field, r.String()))
	}
	if b := cp.OOMMinBumpUp; b != nil && b.Sign() < 0 {
		errs = append(errs, fmt.Errorf("%s.oomMinBumpUp: must not be negative, got %s", field, b.String()))
	}
	if s := cp.MemoryAggregationIntervalSeconds; s != nil && *s < 1 {
		errs = append(errs, fmt.Errorf("%s.memoryAggregationIntervalSeconds: must be at least 1, got %d", field, *s))
	}
	if c := cp.MemoryAggregationIntervalCount; c != nil && *c < 1 {
		errs = append(errs, fmt.Errorf("%s.memoryAggregationIntervalCount: must be at least 1, got %d", field, *c))
	}
	return errs
}

// validateStartupBoost checks a startup boost: type Factor with a factor of
// at least 1, or type Quantity with whole millicores.
func validateStartupBoost(field string, b *vpav1.StartupBoost, allow gatedUse) []error {
	if !allow.startupBoost {
		return []error{gateOff(field, features.CPUStartupBoost)}
	}
	cpu := b.CPU
	if cpu == nil {
		return nil
	}
	switch cpu.Type {
	case vpav1.FactorStartupBoostType:
		switch {
		case cpu.Factor == nil:
			return []error{fmt.Errorf("%s.cpu.factor: required when type is Factor", field)}
		case *cpu.Factor < 1:
			return []error{fmt.Errorf("%s.cpu.factor: must be at least 1, got %d", field, *cpu.Factor)}
		}
	case vpav1.QuantityStartupBoostType:
		switch {
		case cpu.Quantity == nil:
			return []error{fmt.Errorf("%s.cpu.quantity: required when type is Quantity", field)}
		case !wholeMilli(*cpu.Quantity):
			return []error{fmt.Errorf("%s.cpu.quantity: must be a whole number of millicores, got %s", field, cpu.Quantity.String())}
		}
	case "":
		return []error{fmt.Errorf("%s.cpu.type: required; supported: Factor, Quantity", field)}
	default:
		return []error{fmt.Errorf("%s.cpu.type: unsupported value %q; supported: Factor, Quantity", field, cpu.Type)}
	}
	return nil
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
