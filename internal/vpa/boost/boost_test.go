package boost

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"

	"github.com/kscale/kscale/internal/vpa/recommendation"
)

func rl(pairs ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i+1 < len(pairs); i += 2 {
		out[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return out
}

func factor(f int32) *vpav1.GenericStartupBoost {
	return &vpav1.GenericStartupBoost{Type: vpav1.FactorStartupBoostType, Factor: &f}
}

func quantity(q string) *vpav1.GenericStartupBoost {
	v := resource.MustParse(q)
	return &vpav1.GenericStartupBoost{Type: vpav1.QuantityStartupBoostType, Quantity: &v}
}

func sameList(a, b corev1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || v.Cmp(w) != 0 {
			return false
		}
	}
	return true
}

func TestCPU(t *testing.T) {
	tests := []struct {
		name  string
		base  string
		boost *vpav1.GenericStartupBoost
		max   string
		want  string
		err   bool
	}{
		{name: "factor 2", base: "250m", boost: factor(2), want: "500m"},
		{name: "factor without type", base: "250m", boost: &vpav1.GenericStartupBoost{Factor: factor(3).Factor}, want: "750m"},
		{name: "quantity", base: "250m", boost: quantity("1"), want: "1250m"},
		{name: "capped", base: "1", boost: factor(4), max: "2", want: "2"},
		{name: "under the cap", base: "100m", boost: factor(4), max: "2", want: "400m"},
		{name: "no base", base: "0", boost: quantity("500m"), want: "500m"},
		{name: "factor 0", base: "1", boost: factor(0), err: true},
		{name: "no quantity", base: "1", boost: &vpav1.GenericStartupBoost{Type: vpav1.QuantityStartupBoostType}, err: true},
		{name: "unknown type", base: "1", boost: &vpav1.GenericStartupBoost{Type: "Double"}, err: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var maxBoost resource.Quantity
			if tc.max != "" {
				maxBoost = resource.MustParse(tc.max)
			}
			got, err := CPU(resource.MustParse(tc.base), tc.boost, maxBoost)
			if tc.err {
				if err == nil {
					t.Fatalf("CPU = %s, want an error", got.String())
				}
				return
			}
			if err != nil || got.Cmp(resource.MustParse(tc.want)) != 0 {
				t.Errorf("CPU = %s, %v; want %s", got.String(), err, tc.want)
			}
		})
	}
}

func TestApply(t *testing.T) {
	both, reqOnly := vpav1.ContainerControlledValuesRequestsAndLimits, vpav1.ContainerControlledValuesRequestsOnly
	tests := []struct {
		name                   string
		orig                   corev1.ResourceRequirements
		requests, limits       corev1.ResourceList
		controlled             vpav1.ContainerControlledValues
		wantRequests, wantLims corev1.ResourceList
	}{
		{name: "boosts the VPA's request", orig: corev1.ResourceRequirements{Requests: rl("cpu", "100m")}, requests: rl("cpu", "300m", "memory", "1Gi"),
			controlled: both, wantRequests: rl("cpu", "600m", "memory", "1Gi")},
		{name: "no recommendation: boosts the pod's own request", orig: corev1.ResourceRequirements{Requests: rl("cpu", "100m")},
			controlled: both, wantRequests: rl("cpu", "200m")},
		{name: "limit keeps its proportion", orig: corev1.ResourceRequirements{Requests: rl("cpu", "100m"), Limits: rl("cpu", "300m")},
			requests: rl("cpu", "200m"), limits: rl("cpu", "600m"), controlled: both, wantRequests: rl("cpu", "400m"), wantLims: rl("cpu", "1200m")},
		{name: "limit equal to request follows it", orig: corev1.ResourceRequirements{Requests: rl("cpu", "1"), Limits: rl("cpu", "1")},
			controlled: both, wantRequests: rl("cpu", "2"), wantLims: rl("cpu", "2")},
		{name: "RequestsOnly: request stays 1m under the limit", orig: corev1.ResourceRequirements{Requests: rl("cpu", "400m"), Limits: rl("cpu", "500m")},
			controlled: reqOnly, wantRequests: rl("cpu", "499m")},
		{name: "RequestsOnly: under the limit", orig: corev1.ResourceRequirements{Requests: rl("cpu", "100m"), Limits: rl("cpu", "500m")},
			controlled: reqOnly, wantRequests: rl("cpu", "200m")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, lim, err := Apply(tc.orig, tc.requests, tc.limits, tc.controlled, factor(2), resource.Quantity{})
			if err != nil {
				t.Fatal(err)
			}
			if !sameList(req, tc.wantRequests) || !sameList(lim, tc.wantLims) {
				t.Errorf("Apply = %v, %v; want %v, %v", req, lim, tc.wantRequests, tc.wantLims)
			}
		})
	}
}

func boostedPod(readyFor time.Duration, ready bool, annotations map[string]string) *corev1.Pod {
	status := corev1.ConditionTrue
	if !ready {
		status = corev1.ConditionFalse
	}
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Annotations: annotations},
		Spec: corev1.PodSpec{Containers: []corev1.Container{
			{Name: "app", Resources: corev1.ResourceRequirements{Requests: rl("cpu", "400m", "memory", "1Gi")}},
			{Name: "side", Resources: corev1.ResourceRequirements{Requests: rl("cpu", "200m")}},
		}},
		Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: status, LastTransitionTime: metav1.NewTime(now.Add(-readyFor))}}},
	}
}

func TestExpired(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	sec := func(s int32) *int32 { return &s }
	vpa := &vpav1.VerticalPodAutoscaler{Spec: vpav1.VerticalPodAutoscalerSpec{
		StartupBoost: &vpav1.StartupBoost{CPU: &vpav1.GenericStartupBoost{Type: vpav1.FactorStartupBoostType, Factor: factor(2).Factor, DurationSeconds: sec(60)}},
		ResourcePolicy: &vpav1.PodResourcePolicy{ContainerPolicies: []vpav1.ContainerResourcePolicy{{
			ContainerName: "side", StartupBoost: &vpav1.StartupBoost{CPU: &vpav1.GenericStartupBoost{Type: vpav1.QuantityStartupBoostType, DurationSeconds: sec(600)}},
		}}},
	}}
	noDuration := &vpav1.VerticalPodAutoscaler{Spec: vpav1.VerticalPodAutoscalerSpec{StartupBoost: &vpav1.StartupBoost{CPU: factor(2)}}}
	both := map[string]string{AnnotationKey("app"): "{}", AnnotationKey("side"): "{}", "other": "x"}
	tests := []struct {
		name     string
		pod      *corev1.Pod
		vpa      *vpav1.VerticalPodAutoscaler
		want     []string
		progress bool
	}{
		{name: "not ready", pod: boostedPod(time.Hour, false, both), vpa: vpa, progress: true},
		{name: "ready 30s: nothing expired", pod: boostedPod(30*time.Second, true, both), vpa: vpa, progress: true},
		{name: "ready 2m: the pod-level 60s boost expired", pod: boostedPod(2*time.Minute, true, both), vpa: vpa, want: []string{AnnotationKey("app")}, progress: true},
		{name: "ready 11m: both expired", pod: boostedPod(11*time.Minute, true, both), vpa: vpa, want: []string{AnnotationKey("app"), AnnotationKey("side")}, progress: true},
		{name: "no duration: expires once ready", pod: boostedPod(0, true, both), vpa: noDuration, want: []string{AnnotationKey("app"), AnnotationKey("side")}, progress: true},
		{name: "not boosted", pod: boostedPod(time.Hour, true, map[string]string{"other": "x"}), vpa: vpa},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Expired(tc.pod, tc.vpa, now)
			slices.Sort(got)
			if !slices.Equal(got, tc.want) || InProgress(tc.pod) != tc.progress {
				t.Errorf("Expired = %v, InProgress %v; want %v, %v", got, InProgress(tc.pod), tc.want, tc.progress)
			}
		})
	}
}

func TestPodAndUnboost(t *testing.T) {
	off := vpav1.ContainerScalingModeOff
	vpa := &vpav1.VerticalPodAutoscaler{Spec: vpav1.VerticalPodAutoscalerSpec{
		StartupBoost:   &vpav1.StartupBoost{CPU: factor(2)},
		ResourcePolicy: &vpav1.PodResourcePolicy{ContainerPolicies: []vpav1.ContainerResourcePolicy{{ContainerName: "side", Mode: &off}}},
	}}
	pod := boostedPod(0, false, nil)
	processed := recommendation.Result{Containers: []recommendation.Container{{Index: 0, Name: "app", Requests: rl("cpu", "300m", "memory", "2Gi")}}}
	got, ann, err := Pod(pod, vpa, processed, resource.Quantity{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Containers) != 1 || !sameList(got.Containers[0].Requests, rl("cpu", "600m", "memory", "2Gi")) {
		t.Fatalf("Pod = %+v, want app boosted to 600m (side is Off)", got)
	}
	if len(ann) != 1 || ann[AnnotationKey("app")] != `{"requests":{"cpu":"400m","memory":"1Gi"},"limits":{}}` {
		t.Fatalf("annotations = %v, want app's original resources", ann)
	}
	// Mode Off: no recommendation is applied, the pod's own CPU is boosted.
	got, _, err = Pod(pod, vpa, recommendation.Result{}, resource.Quantity{})
	if err != nil || len(got.Containers) != 1 || !sameList(got.Containers[0].Requests, rl("cpu", "800m")) {
		t.Fatalf("Pod with mode Off = %+v, %v; want app at 800m", got, err)
	}

	boosted := boostedPod(time.Hour, true, ann)
	boosted.Spec.Containers[0].Resources.Requests = rl("cpu", "800m", "memory", "1Gi")
	tests := []struct {
		name      string
		processed recommendation.Result
		expired   []string
		want      corev1.ResourceList // app's requests; nil: app not resized
	}{
		{name: "expired, VPA has a recommendation", processed: processed, expired: []string{AnnotationKey("app")}, want: rl("cpu", "300m", "memory", "2Gi")},
		{name: "expired, no recommendation: back to the original", expired: []string{AnnotationKey("app")}, want: rl("cpu", "400m", "memory", "1Gi")},
		{name: "still boosted", processed: processed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Unboost(boosted, tc.processed, tc.expired)
			if err != nil {
				t.Fatal(err)
			}
			app, ok := got.Find("app")
			if ok != (tc.want != nil) || (ok && !sameList(app.Requests, tc.want)) {
				t.Errorf("Unboost = %+v, want app requests %v", got, tc.want)
			}
		})
	}
}
