package estimator_test

import (
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"

	"github.com/kscale/kscale/internal/vpa/estimator"
)

func ptr[T any](v T) *T { return &v }

func TestRecommendPolicy(t *testing.T) {
	c, id := feed(t, []usage{
		{pod: "p", container: "app", minutes: 8 * 1440, cpuMilli: 500, memBytes: 300 * mib},
		{pod: "p", container: "sidecar", minutes: 8 * 1440, cpuMilli: 5, memBytes: 20 * mib},
	})
	states := c.ContainerStates(id)
	tests := []struct {
		name     string
		policy   []vpav1.ContainerResourcePolicy
		annot    map[string]string
		integer  bool
		globCPU  int64
		want     map[string]map[corev1.ResourceName]string // container -> resource -> target
		wantNone []string
	}{
		{name: "no policy: both containers, pod minimum split", want: map[string]map[corev1.ResourceName]string{
			"app": {"cpu": "587m", "memory": "380258472"}, "sidecar": {"cpu": "12m", "memory": "131072000"}}},
		{name: "sidecar Off: not recommended, minimum not split",
			policy:   []vpav1.ContainerResourcePolicy{{ContainerName: "sidecar", Mode: ptr(vpav1.ContainerScalingModeOff)}},
			want:     map[string]map[corev1.ResourceName]string{"app": {"cpu": "587m", "memory": "380258472"}},
			wantNone: []string{"sidecar"}},
		{name: "controlledResources cpu only",
			policy: []vpav1.ContainerResourcePolicy{{ContainerName: "*", ControlledResources: &[]corev1.ResourceName{corev1.ResourceCPU}}},
			want:   map[string]map[corev1.ResourceName]string{"app": {"cpu": "587m"}, "sidecar": {"cpu": "12m"}}},
		{name: "minAllowed raises, named policy beats *",
			policy: []vpav1.ContainerResourcePolicy{
				{ContainerName: "*", MinAllowed: corev1.ResourceList{"cpu": resource.MustParse("1")}},
				{ContainerName: "sidecar", MinAllowed: corev1.ResourceList{"memory": resource.MustParse("1Gi")}},
			},
			want: map[string]map[corev1.ResourceName]string{"app": {"cpu": "1", "memory": "380258472"}, "sidecar": {"cpu": "12m", "memory": "1Gi"}}},
		{name: "global max allowed, VPA max wins per resource", globCPU: 100,
			policy: []vpav1.ContainerResourcePolicy{{ContainerName: "app", MaxAllowed: corev1.ResourceList{"cpu": resource.MustParse("300m")}}},
			want:   map[string]map[corev1.ResourceName]string{"app": {"cpu": "300m"}, "sidecar": {"cpu": "12m"}}},
		// A maxAllowed near 1Ei caps nothing (its millicores do not fit in
		// an int64; upstream compares quantities, pkg/utils/vpa/capping.go).
		{name: "maxAllowed 1Ei caps nothing",
			policy: []vpav1.ContainerResourcePolicy{{ContainerName: "*", MaxAllowed: corev1.ResourceList{"cpu": resource.MustParse("1Ei")}}},
			want:   map[string]map[corev1.ResourceName]string{"app": {"cpu": "587m"}, "sidecar": {"cpu": "12m"}}},
		{name: "integer CPU for the annotated container", integer: true,
			annot: map[string]string{estimator.IntegerCPUAnnotationPrefix + "app_integerCPU": "true"},
			want:  map[string]map[corev1.ResourceName]string{"app": {"cpu": "1"}, "sidecar": {"cpu": "12m"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := estimator.DefaultConfig()
			cfg.IntegerCPU, cfg.MaxAllowedCPUMillicores = tt.integer, tt.globCPU
			vpa := &vpav1.VerticalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "web", Annotations: tt.annot},
				Spec: vpav1.VerticalPodAutoscalerSpec{ResourcePolicy: &vpav1.PodResourcePolicy{ContainerPolicies: tt.policy}}}
			if err := estimator.ValidatePolicy(vpa.Spec.ResourcePolicy); err != nil {
				t.Fatal(err)
			}
			rec := estimator.New(cfg).Recommend(vpa, states)
			got := map[string]vpav1.RecommendedContainerResources{}
			prev := ""
			for _, r := range rec.ContainerRecommendations {
				if r.ContainerName <= prev {
					t.Fatalf("recommendations not sorted by name: %q after %q", r.ContainerName, prev)
				}
				prev = r.ContainerName
				got[r.ContainerName] = r
			}
			for _, n := range tt.wantNone {
				if _, ok := got[n]; ok {
					t.Fatalf("container %q got a recommendation, want none", n)
				}
			}
			for name, res := range tt.want {
				r, ok := got[name]
				if !ok {
					t.Fatalf("container %q has no recommendation", name)
				}
				if len(r.Target) != len(res) && tt.name == "controlledResources cpu only" {
					t.Fatalf("container %q target %v, want only %v", name, r.Target, res)
				}
				for rn, q := range res {
					expectQuantity(t, name+" target "+string(rn), r.Target, rn, q)
				}
			}
		})
	}
}

func TestValidatePolicy(t *testing.T) {
	tests := []struct {
		name      string
		policy    []vpav1.ContainerResourcePolicy
		wantField string
	}{
		{name: "valid", policy: []vpav1.ContainerResourcePolicy{{ContainerName: "*", Mode: ptr(vpav1.ContainerScalingModeAuto),
			ControlledValues: ptr(vpav1.ContainerControlledValuesRequestsOnly)}}},
		{name: "empty name", policy: []vpav1.ContainerResourcePolicy{{}}, wantField: "spec.resourcePolicy.containerPolicies[0].containerName"},
		{name: "duplicate", policy: []vpav1.ContainerResourcePolicy{{ContainerName: "a"}, {ContainerName: "a"}},
			wantField: "spec.resourcePolicy.containerPolicies[1].containerName"},
		{name: "bad mode", policy: []vpav1.ContainerResourcePolicy{{ContainerName: "a", Mode: ptr(vpav1.ContainerScalingMode("Sometimes"))}},
			wantField: "spec.resourcePolicy.containerPolicies[0].mode"},
		{name: "bad controlled values", policy: []vpav1.ContainerResourcePolicy{{ContainerName: "a", ControlledValues: ptr(vpav1.ContainerControlledValues("LimitsOnly"))}},
			wantField: "spec.resourcePolicy.containerPolicies[0].controlledValues"},
		{name: "unsupported controlled resource", policy: []vpav1.ContainerResourcePolicy{{ContainerName: "a", ControlledResources: &[]corev1.ResourceName{"nvidia.com/gpu"}}},
			wantField: "spec.resourcePolicy.containerPolicies[0].controlledResources[0]"},
		{name: "min above max", policy: []vpav1.ContainerResourcePolicy{{ContainerName: "a",
			MinAllowed: corev1.ResourceList{"cpu": resource.MustParse("2")}, MaxAllowed: corev1.ResourceList{"cpu": resource.MustParse("1")}}},
			wantField: "spec.resourcePolicy.containerPolicies[0].minAllowed.cpu"},
		{name: "negative", policy: []vpav1.ContainerResourcePolicy{{ContainerName: "a", MaxAllowed: corev1.ResourceList{"memory": resource.MustParse("-1")}}},
			wantField: "spec.resourcePolicy.containerPolicies[0].maxAllowed.memory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := estimator.ValidatePolicy(&vpav1.PodResourcePolicy{ContainerPolicies: tt.policy})
			if tt.wantField == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var pe *estimator.PolicyError
			if !errors.As(err, &pe) || pe.Field != tt.wantField || !strings.HasPrefix(err.Error(), tt.wantField) {
				t.Fatalf("ValidatePolicy error = %v, want field %s", err, tt.wantField)
			}
		})
	}
}

func TestConfigValidate(t *testing.T) {
	cfg := estimator.DefaultConfig()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := cfg
	bad.TargetCPUPercentile = 1.5
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "--target-cpu-percentile") {
		t.Fatalf("Validate = %v, want a --target-cpu-percentile error", err)
	}
	bad = cfg
	bad.MarginFraction = -0.1
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "--recommendation-margin-fraction") {
		t.Fatalf("Validate = %v, want a --recommendation-margin-fraction error", err)
	}
}

func TestRoundingFlags(t *testing.T) {
	c, id := feed(t, []usage{{pod: "p", container: "app", minutes: 8 * 1440, cpuMilli: 500, memBytes: 300 * mib}})
	cfg := estimator.DefaultConfig()
	cfg.RoundCPUMillicores, cfg.RoundMemoryBytes = 100, mib
	b := estimator.New(cfg).Container(c.ContainerStates(id)["app"], 1)
	if b.Target.CPU != 600 || b.Target.Memory != 363*mib {
		t.Fatalf("rounded target = %dm %dB, want 600m %dB", b.Target.CPU, b.Target.Memory, 363*mib)
	}
}

// TestRoundUpBeyondMaximum pins upstream's RoundUpToScale, which the VPA
// oracle (hack/vpafidelity) found kscale capping: rounding the largest
// amount up to a multiple of 1 MiB goes past MaxResourceAmount.
func TestRoundUpBeyondMaximum(t *testing.T) {
	tests := []struct{ v, f, want int64 }{
		{estimator.MaxResourceAmount, 1 << 20, 95367432 << 20},
		{5, 1, 5},
		{1000, 1000, 1000},
		{1001, 1000, 2000},
	}
	for _, tt := range tests {
		if got := estimator.RoundUpForTest(tt.v, tt.f); got != tt.want {
			t.Errorf("roundUp(%d, %d) = %d, want %d", tt.v, tt.f, got, tt.want)
		}
	}
}
