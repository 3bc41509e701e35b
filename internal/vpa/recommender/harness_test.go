package recommender_test

import (
	"context"
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	vpaclientset "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/client/clientset/versioned"
	metricsclientset "k8s.io/metrics/pkg/client/clientset/versioned"
	testingclock "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kscale/kscale/deploy/vpa/crds"
	"github.com/kscale/kscale/internal/cachesync"
	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/testenv"
	"github.com/kscale/kscale/internal/vpa/input"
	"github.com/kscale/kscale/internal/vpa/recommender"
	"github.com/kscale/kscale/internal/vpa/target"
)

// harness is the shared state of the control-plane test.
type harness struct {
	env     *testenv.Env
	vpas    vpaclientset.Interface
	usage   *usageServer
	watcher *input.PodWatcher
	clock   *testingclock.FakeClock
	deps    recommender.Deps
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	env := testenv.Start(t, testenv.Options{
		APIServerFlags: []string{"--enable-aggregator-routing=true"},
		Users:          []testenv.User{recommenderUser},
	})
	ctx := t.Context()
	if err := crds.Install(ctx, env.Config, time.Minute); err != nil {
		t.Fatal(err)
	}
	h := &harness{env: env, vpas: vpaclientset.NewForConfigOrDie(env.Config), clock: testingclock.NewFakeClock(t0)}
	h.usage = serveMetricsAPI(t, env, testenv.NewNetNS(t, "10.214.0.0/30"))
	w, err := input.NewPodWatcher(env.Client, true)
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithCancel(ctx)
	t.Cleanup(func() { cancel(); w.Shutdown() })
	w.Start(wctx)
	if err := cachesync.Wait(wctx, "pods and events", time.Minute, "test", w.WaitForSync); err != nil {
		t.Fatal(err)
	}
	h.watcher = w
	c, err := client.New(env.Config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h.deps = recommender.Deps{
		VPAs:    h.vpas.AutoscalingV1(),
		Pods:    w,
		Usage:   input.NewMetricsSource(metricsclientset.NewForConfigOrDie(env.Config).MetricsV1beta1()),
		OOMs:    w,
		Targets: target.NewResolver(c),
		Clock:   h.clock,
	}
	return h
}

// withRegistry returns deps with their metrics registry set to reg.
func withRegistry(deps recommender.Deps, reg *prometheus.Registry) recommender.Deps {
	deps.Registerer = reg
	return deps
}

// newRecommender builds a recommender with a fresh metrics registry.
func (h *harness) newRecommender(t *testing.T, reg *prometheus.Registry) *recommender.Recommender {
	t.Helper()
	deps := h.deps
	deps.Registerer = reg
	r, err := recommender.New(recommender.DefaultConfig(), deps)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// runningPod creates a Running pod with the given labels.
func (h *harness) runningPod(t *testing.T, name string, labels map[string]string) {
	t.Helper()
	ctx := t.Context()
	p, err := h.env.Client.CoreV1().Pods("default").Create(ctx, fixture.Pod(name, fixture.WithLabels(labels)), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p.Status.Phase = corev1.PodRunning
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", Image: fixture.PauseImage, Ready: true,
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(t0)}}}}
	if _, err := h.env.Client.CoreV1().Pods("default").UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Wait until the watcher sees the running pod.
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		pods, _ := h.watcher.List()
		for _, x := range pods {
			if x.Name == name && x.Status.Phase == corev1.PodRunning {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("pod %s never showed up in the watcher: %v", name, err)
	}
}

func (h *harness) createVPA(t *testing.T, name, kind, targetName string, policy *vpav1.PodResourcePolicy) {
	t.Helper()
	v := &vpav1.VerticalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: vpav1.VerticalPodAutoscalerSpec{
			TargetRef:      &autoscalingv1.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: kind, Name: targetName},
			ResourcePolicy: policy,
		},
	}
	if _, err := h.vpas.AutoscalingV1().VerticalPodAutoscalers("default").Create(t.Context(), v, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func (h *harness) getVPA(t *testing.T, name string) *vpav1.VerticalPodAutoscaler {
	t.Helper()
	v, err := h.vpas.AutoscalingV1().VerticalPodAutoscalers("default").Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// loop runs n loops one minute apart, serving the usage at each loop's time.
func (h *harness) loop(t *testing.T, r *recommender.Recommender, n int) {
	t.Helper()
	for range n {
		h.usage.setTime(h.clock.Now())
		if err := r.RunOnce(t.Context()); err != nil {
			t.Fatalf("RunOnce: %v", err)
		}
		h.clock.Step(time.Minute)
	}
}

func condition(v *vpav1.VerticalPodAutoscaler, ct vpav1.VerticalPodAutoscalerConditionType) *vpav1.VerticalPodAutoscalerCondition {
	for i := range v.Status.Conditions {
		if v.Status.Conditions[i].Type == ct {
			return &v.Status.Conditions[i]
		}
	}
	return nil
}

func recommendationFor(v *vpav1.VerticalPodAutoscaler, container string) *vpav1.RecommendedContainerResources {
	if v.Status.Recommendation == nil {
		return nil
	}
	for i := range v.Status.Recommendation.ContainerRecommendations {
		if v.Status.Recommendation.ContainerRecommendations[i].ContainerName == container {
			return &v.Status.Recommendation.ContainerRecommendations[i]
		}
	}
	return nil
}

func quantity(l corev1.ResourceList, r corev1.ResourceName) resource.Quantity { return l[r] }

// gaugeValue returns the value of the series of name whose label has value.
func gaugeValue(t *testing.T, reg *prometheus.Registry, name, label, value string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, lp := range m.GetLabel() {
				if lp.GetName() == label && lp.GetValue() == value {
					return m.GetGauge().GetValue()
				}
			}
		}
	}
	t.Fatalf("metric %s{%s=%q} not found", name, label, value)
	return 0
}

// counterValue returns the counter of the series of name with exactly the
// given labels.
func counterValue(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	series:
		for _, m := range mf.GetMetric() {
			if len(m.GetLabel()) != len(labels) {
				continue
			}
			for _, lp := range m.GetLabel() {
				if labels[lp.GetName()] != lp.GetValue() {
					continue series
				}
			}
			return m.GetCounter().GetValue()
		}
	}
	t.Fatalf("metric %s%v not found", name, labels)
	return 0
}
