package updater_test

import (
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kscale/kscale/internal/vpa/boost"
	"github.com/kscale/kscale/internal/vpa/updater"
)

// testStartupBoost runs a CPU startup boost through the
// real API server: the webhook (gate CPUStartupBoost on) doubles the CPU of
// a new pod of a VPA in mode Off and records the original resources; the
// updater leaves it boosted until the pod has been Ready for the boost's
// 60 seconds, then resizes it back through pods/resize and drops the
// annotation. There is no kubelet: the test plays its part by marking the
// pods Running and Ready and reporting the applied resources, so what it
// observes is the API server's acceptance of the resize (the pod spec) and
// the annotations, not a container's cgroup.
func testStartupBoost(t *testing.T, h *harness) {
	h.expectResizeSubresource(t)
	const ns = "boost"
	if err := h.c.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	mode, factor, seconds := vpav1.UpdateModeOff, int32(2), int32(60)
	vpa := &vpav1.VerticalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
		Spec: vpav1.VerticalPodAutoscalerSpec{
			TargetRef:    &autoscalingv1.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
			UpdatePolicy: &vpav1.PodUpdatePolicy{UpdateMode: &mode},
			StartupBoost: &vpav1.StartupBoost{CPU: &vpav1.GenericStartupBoost{Type: vpav1.FactorStartupBoostType, Factor: &factor, DurationSeconds: &seconds}},
		},
	}
	if err := h.c.Create(t.Context(), vpa); err != nil {
		t.Fatal(err)
	}
	h.workload(t, ns, "web", 1)
	pods := h.waitPods(t, ns, "web", 1, requestIs("200m"))
	if got := pods[0].Annotations[boost.AnnotationKey("app")]; got != `{"requests":{"cpu":"100m","memory":"128Mi"},"limits":{}}` {
		t.Fatalf("boost annotation = %q, want the original 100m/128Mi", got)
	}

	clk := clocktesting.NewFakeClock(time.Now().Add(30 * time.Second))
	// The webhook's Lease is renewed on the real clock; the fake one runs ahead.
	u, reg := h.newUpdaterWithClock(t, ns, clk, func(c *updater.Config) {
		c.Features.CPUStartupBoost, c.AdmissionStatusTimeout = true, time.Hour
	})
	if err := u.RunOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := counter(t, reg, "kscale_vpa_updater_in_place_updates_total", "Unboosted"); got != 0 {
		t.Fatalf("30s after Ready: in_place_updates_total{result=Unboosted} = %v, want 0", got)
	}
	clk.Step(time.Minute)
	if err := u.RunOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := counter(t, reg, "kscale_vpa_updater_in_place_updates_total", "Unboosted"); got != 1 {
		t.Fatalf("90s after Ready: in_place_updates_total{result=Unboosted} = %v, want 1 (UnboostError %v)", got, counter(t, reg, "kscale_vpa_updater_in_place_updates_total", "UnboostError"))
	}
	pod := &corev1.Pod{}
	if err := h.c.Get(t.Context(), client.ObjectKeyFromObject(&pods[0]), pod); err != nil {
		t.Fatal(err)
	}
	cpu := pod.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU]
	if cpu.String() != "100m" || boost.InProgress(pod) || pod.Annotations[updater.InPlaceUpdatedAnnotation] != "true" {
		t.Errorf("after the boost: cpu request %s, annotations %v; want 100m, no boost annotation, %s", cpu.String(), pod.Annotations, updater.InPlaceUpdatedAnnotation)
	}
	if n := len(h.terminating(t, ns, "web")); n != 0 {
		t.Errorf("evicted %d pods, want 0", n)
	}
}
