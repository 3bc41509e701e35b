package admission

import (
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"

	"github.com/kscale/kscale/internal/vpa/features"
)

func gatedVPA(mutate func(*vpav1.VerticalPodAutoscaler)) *vpav1.VerticalPodAutoscaler {
	mode := vpav1.UpdateModeRecreate
	v := &vpav1.VerticalPodAutoscaler{Spec: vpav1.VerticalPodAutoscalerSpec{
		TargetRef:      &autoscalingv1.CrossVersionObjectReference{Kind: "Deployment", Name: "web"},
		UpdatePolicy:   &vpav1.PodUpdatePolicy{UpdateMode: &mode},
		ResourcePolicy: &vpav1.PodResourcePolicy{ContainerPolicies: []vpav1.ContainerResourcePolicy{{ContainerName: "app"}}},
	}}
	if mutate != nil {
		mutate(v)
	}
	return v
}

func inPlaceMode(v *vpav1.VerticalPodAutoscaler) {
	m := vpav1.UpdateModeInPlace
	v.Spec.UpdatePolicy.UpdateMode = &m
}

func evictAfterOOM(s int32) func(*vpav1.VerticalPodAutoscaler) {
	return func(v *vpav1.VerticalPodAutoscaler) { v.Spec.UpdatePolicy.EvictAfterOOMSeconds = &s }
}

func oomRatio(r string) func(*vpav1.VerticalPodAutoscaler) {
	return func(v *vpav1.VerticalPodAutoscaler) {
		q := resource.MustParse(r)
		v.Spec.ResourcePolicy.ContainerPolicies[0].OOMBumpUpRatio = &q
	}
}

func memoryInterval(seconds int32, count int64) func(*vpav1.VerticalPodAutoscaler) {
	return func(v *vpav1.VerticalPodAutoscaler) {
		cp := &v.Spec.ResourcePolicy.ContainerPolicies[0]
		cp.MemoryAggregationIntervalSeconds, cp.MemoryAggregationIntervalCount = &seconds, &count
	}
}

func minBump(b string) func(*vpav1.VerticalPodAutoscaler) {
	return func(v *vpav1.VerticalPodAutoscaler) {
		q := resource.MustParse(b)
		v.Spec.ResourcePolicy.ContainerPolicies[0].OOMMinBumpUp = &q
	}
}

func podBoost(b vpav1.GenericStartupBoost) func(*vpav1.VerticalPodAutoscaler) {
	return func(v *vpav1.VerticalPodAutoscaler) { v.Spec.StartupBoost = &vpav1.StartupBoost{CPU: &b} }
}

func containerBoost(v *vpav1.VerticalPodAutoscaler) {
	f := int32(2)
	v.Spec.ResourcePolicy.ContainerPolicies[0].StartupBoost = &vpav1.StartupBoost{CPU: &vpav1.GenericStartupBoost{Type: vpav1.FactorStartupBoostType, Factor: &f}}
}

func TestValidateVPAFeatureGates(t *testing.T) {
	on := features.Gates{InPlace: true, CPUStartupBoost: true, PerVPAConfig: true}
	two, zero := int32(2), int32(0)
	half, cpu := resource.MustParse("500m"), resource.MustParse("1500u")
	tests := []struct {
		name   string
		vpa    func(*vpav1.VerticalPodAutoscaler)
		old    func(*vpav1.VerticalPodAutoscaler) // nil: a create
		update bool
		gates  features.Gates
		want   string // "" when valid
	}{
		{name: "InPlace, gate off", vpa: inPlaceMode, want: "spec.updatePolicy.updateMode: InPlace needs feature gate InPlace"},
		{name: "InPlace, gate on", vpa: inPlaceMode, gates: on},
		{name: "InPlace update of an InPlace VPA, gate off", vpa: inPlaceMode, old: inPlaceMode, update: true},
		{name: "switch to InPlace, gate off", vpa: inPlaceMode, update: true, want: "needs feature gate InPlace"},
		{name: "InPlaceOrRecreate needs no gate", vpa: func(v *vpav1.VerticalPodAutoscaler) {
			m := vpav1.UpdateModeInPlaceOrRecreate
			v.Spec.UpdatePolicy.UpdateMode = &m
		}},

		{name: "evictAfterOOMSeconds, gate off", vpa: evictAfterOOM(60), want: "spec.updatePolicy.evictAfterOOMSeconds: needs feature gate PerVPAConfig"},
		{name: "evictAfterOOMSeconds, gate on", vpa: evictAfterOOM(60), gates: on},
		{name: "evictAfterOOMSeconds 0", vpa: evictAfterOOM(0), gates: on, want: "evictAfterOOMSeconds: must be at least 1, got 0"},
		{name: "oomBumpUpRatio 1.5", vpa: oomRatio("1.5"), gates: on},
		{name: "oomBumpUpRatio 0.9", vpa: oomRatio("0.9"), gates: on, want: "containerPolicies[0].oomBumpUpRatio: must be at least 1"},
		{name: "oomBumpUpRatio, gate off", vpa: oomRatio("2"), want: "needs feature gate PerVPAConfig"},
		{name: "oomMinBumpUp negative", vpa: minBump("-1"), gates: on, want: "oomMinBumpUp: must not be negative"},
		{name: "oomMinBumpUp 0", vpa: minBump("0"), gates: on},
		{name: "memory interval", vpa: memoryInterval(3600, 24), gates: on},
		{name: "memory interval seconds 0", vpa: memoryInterval(0, 1), gates: on, want: "memoryAggregationIntervalSeconds: must be at least 1"},
		{name: "memory interval count 0", vpa: memoryInterval(60, 0), gates: on, want: "memoryAggregationIntervalCount: must be at least 1"},
		{name: "per-VPA config kept on update, gate off", vpa: memoryInterval(60, 2), old: oomRatio("2"), update: true},
		{name: "per-VPA config added on update, gate off", vpa: memoryInterval(60, 2), update: true, want: "needs feature gate PerVPAConfig"},

		{name: "startupBoost, gate off", vpa: podBoost(vpav1.GenericStartupBoost{Type: vpav1.FactorStartupBoostType, Factor: &two}), want: "spec.startupBoost: needs feature gate CPUStartupBoost"},
		{name: "container startupBoost, gate off", vpa: containerBoost, want: "containerPolicies[0].startupBoost: needs feature gate CPUStartupBoost"},
		{name: "startupBoost kept on update, gate off", vpa: containerBoost, old: containerBoost, update: true},
		{name: "factor 2", vpa: podBoost(vpav1.GenericStartupBoost{Type: vpav1.FactorStartupBoostType, Factor: &two}), gates: on},
		{name: "factor 0", vpa: podBoost(vpav1.GenericStartupBoost{Type: vpav1.FactorStartupBoostType, Factor: &zero}), gates: on, want: "spec.startupBoost.cpu.factor: must be at least 1"},
		{name: "factor missing", vpa: podBoost(vpav1.GenericStartupBoost{Type: vpav1.FactorStartupBoostType}), gates: on, want: "cpu.factor: required when type is Factor"},
		{name: "quantity", vpa: podBoost(vpav1.GenericStartupBoost{Type: vpav1.QuantityStartupBoostType, Quantity: &half}), gates: on},
		{name: "fractional quantity", vpa: podBoost(vpav1.GenericStartupBoost{Type: vpav1.QuantityStartupBoostType, Quantity: &cpu}), gates: on, want: "cpu.quantity: must be a whole number of millicores"},
		{name: "no type", vpa: podBoost(vpav1.GenericStartupBoost{}), gates: on, want: "cpu.type: required"},
		{name: "bad type", vpa: podBoost(vpav1.GenericStartupBoost{Type: "Double"}), gates: on, want: `cpu.type: unsupported value "Double"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var old *vpav1.VerticalPodAutoscaler
			if tc.update {
				old = gatedVPA(tc.old)
			}
			err := ValidateVPA(gatedVPA(tc.vpa), old, tc.gates)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("ValidateVPA = %v, want valid", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("ValidateVPA = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestVPAReviewRatchetsOnTheOldObject sends UPDATE reviews through the
// handler: with gate InPlace off, keeping mode InPlace is allowed, switching
// to it is not, and an undecodable old object is rejected.
func TestVPAReviewRatchetsOnTheOldObject(t *testing.T) {
	h := vpaHandler(t)
	inPlace := []byte(`{"spec":{"targetRef":{"kind":"Deployment","name":"web"},"updatePolicy":{"updateMode":"InPlace"},"recommenders":[{"name":"x"}]}}`)
	recreate := []byte(`{"spec":{"targetRef":{"kind":"Deployment","name":"web"},"updatePolicy":{"updateMode":"Recreate"}}}`)
	tests := []struct {
		name     string
		old, obj []byte
		allowed  bool
	}{
		{name: "keeps InPlace", old: inPlace, obj: inPlace, allowed: true},
		{name: "switches to InPlace", old: recreate, obj: inPlace},
		{name: "undecodable old object", old: []byte(`{"spec":[]}`), obj: recreate},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := reviewOperation(t, h, admissionv1.Update, tc.obj, tc.old)
			if resp.Allowed != tc.allowed {
				t.Errorf("allowed = %v (%+v), want %v", resp.Allowed, resp.Result, tc.allowed)
			}
		})
	}
}
