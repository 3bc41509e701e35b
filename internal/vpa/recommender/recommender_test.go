package recommender_test

import (
	"context"
	"errors"
	"strings"
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
	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/testenv"
	"github.com/kscale/kscale/internal/vpa/input"
	"github.com/kscale/kscale/internal/vpa/model"
	"github.com/kscale/kscale/internal/vpa/recommender"
	"github.com/kscale/kscale/internal/vpa/target"
)

var t0 = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

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
	h.usage = serveMetricsAPI(t, env, newNetNS(t))
	w, err := input.NewPodWatcher(env.Client, true)
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithCancel(ctx)
	t.Cleanup(func() { cancel(); w.Shutdown() })
	if err := w.Start(wctx, time.Minute); err != nil {
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

// newRecommender builds a recommender with a fresh metrics registry.
func (h *harness) newRecommender(t *testing.T, reg *prometheus.Registry) *recommender.Recommender {
	t.Helper()
	deps := h.deps
	deps.Registerer = reg
	r, err := recommender.New(recommender.Config{}, deps)
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

func TestRecommenderAgainstControlPlane(t *testing.T) {
	h := newHarness(t)
	ctx := t.Context()
	if _, err := h.env.Client.AppsV1().Deployments("default").Create(ctx, fixture.Deployment("web", 2), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"web-a", "web-b"} {
		h.runningPod(t, name, map[string]string{"app": "web", "pod-template-hash": "1"})
		h.usage.set("default", name, "app", "500m", "300Mi")
	}
	h.createVPA(t, "web", "Deployment", "web", nil)
	h.createVPA(t, "ghost", "Deployment", "nothing", nil)
	h.createVPA(t, "badpolicy", "Deployment", "web", &vpav1.PodResourcePolicy{ContainerPolicies: []vpav1.ContainerResourcePolicy{{
		ContainerName: "app",
		MinAllowed:    corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")},
		MaxAllowed:    corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")},
	}}})

	reg := prometheus.NewRegistry()
	r := h.newRecommender(t, reg)
	if err := r.LoadHistory(ctx); err != nil {
		t.Fatal(err)
	}
	h.loop(t, r, 30)

	var upperBefore resource.Quantity
	t.Run("the recommender writes status", func(t *testing.T) {
		v := h.getVPA(t, "web")
		if c := condition(v, vpav1.RecommendationProvided); c == nil || c.Status != corev1.ConditionTrue {
			t.Fatalf("RecommendationProvided = %+v, want True", c)
		}
		rec := recommendationFor(v, "app")
		if rec == nil {
			t.Fatalf("no recommendation for app: %+v", v.Status)
		}
		if got := quantity(rec.Target, corev1.ResourceCPU); got.MilliValue() != 587 {
			t.Errorf("target cpu = %s, want 587m", got.String())
		}
		if got := quantity(rec.Target, corev1.ResourceMemory); got.Value() != 380258472 {
			t.Errorf("target memory = %s, want 380258472", got.String())
		}
		upperBefore = quantity(rec.UpperBound, corev1.ResourceCPU)
		if upperBefore.MilliValue() <= 587 {
			t.Errorf("upper bound cpu %s not above the target", upperBefore.String())
		}
		if c := condition(v, vpav1.NoPodsMatched); c != nil {
			t.Errorf("NoPodsMatched set on a VPA with pods: %+v", c)
		}
		if got := gaugeValue(t, reg, "kscale_vpa_recommender_vpas", "recommendation", "true"); got != 1 {
			t.Errorf("vpas{recommendation=true} = %v, want 1", got)
		}
	})

	t.Run("a targetRef to nothing is ConfigUnsupported and gets no recommendation", func(t *testing.T) {
		v := h.getVPA(t, "ghost")
		c := condition(v, vpav1.ConfigUnsupported)
		if c == nil || c.Status != corev1.ConditionTrue || c.Reason != string(target.ReasonNotFound) || !strings.Contains(c.Message, "nothing") {
			t.Fatalf("ConfigUnsupported = %+v, want True/TargetNotFound naming the target", c)
		}
		if v.Status.Recommendation != nil {
			t.Fatalf("recommendation written for a VPA without target: %+v", v.Status.Recommendation)
		}
		if c := condition(v, vpav1.RecommendationProvided); c == nil || c.Status != corev1.ConditionFalse {
			t.Fatalf("RecommendationProvided = %+v, want False", c)
		}
		if c := condition(v, vpav1.NoPodsMatched); c == nil || c.Status != corev1.ConditionTrue {
			t.Fatalf("NoPodsMatched = %+v, want True", c)
		}
	})

	t.Run("an invalid resource policy is ConfigUnsupported and gets no recommendation", func(t *testing.T) {
		v := h.getVPA(t, "badpolicy")
		c := condition(v, vpav1.ConfigUnsupported)
		if c == nil || c.Reason != recommender.ReasonInvalidResourcePolicy || !strings.Contains(c.Message, "containerPolicies[0].minAllowed.cpu") {
			t.Fatalf("ConfigUnsupported = %+v, want InvalidResourcePolicy naming the field", c)
		}
		if v.Status.Recommendation != nil {
			t.Fatalf("recommendation written despite the invalid policy: %+v", v.Status.Recommendation)
		}
	})

	t.Run("checkpoints are written", func(t *testing.T) {
		cp, err := h.vpas.AutoscalingV1().VerticalPodAutoscalerCheckpoints("default").Get(ctx, "web-app", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if cp.Status.TotalSamplesCount != 60 || cp.Status.Version != model.CheckpointVersion {
			t.Fatalf("checkpoint status = %d samples, version %q; want 60, %q", cp.Status.TotalSamplesCount, cp.Status.Version, model.CheckpointVersion)
		}
		if _, err := h.vpas.AutoscalingV1().VerticalPodAutoscalerCheckpoints("default").Get(ctx, "ghost-app", metav1.GetOptions{}); err == nil {
			t.Fatal("a checkpoint was written for the VPA without target")
		}
	})

	t.Run("after a restart recommendations come back from checkpoints", func(t *testing.T) {
		r2 := h.newRecommender(t, prometheus.NewRegistry())
		if err := r2.LoadHistory(ctx); err != nil {
			t.Fatal(err)
		}
		h.loop(t, r2, 1)
		id := model.VPAID{Namespace: "default", Name: "web"}
		if got := r2.Cluster().ContainerStates(id)["app"].TotalSamplesCount; got != 62 {
			t.Fatalf("samples after restart = %d, want 60 from the checkpoint + 2 new", got)
		}
		rec := recommendationFor(h.getVPA(t, "web"), "app")
		up := quantity(rec.UpperBound, corev1.ResourceCPU)
		if up.MilliValue() > upperBefore.MilliValue() || up.MilliValue() < 587 {
			t.Fatalf("upper bound after restart = %s, want between 587m and %s (history kept, not from zero)", up.String(), upperBefore.String())
		}
		r = r2
	})

	t.Run("an OOM kill raises the memory recommendation", func(t *testing.T) {
		p, err := h.env.Client.CoreV1().Pods("default").Get(ctx, "web-a", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		p.Status.ContainerStatuses[0].State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			Reason: "OOMKilled", ExitCode: 137, StartedAt: metav1.NewTime(t0), FinishedAt: metav1.NewTime(h.clock.Now())}}
		p.Status.ContainerStatuses[0].Ready = false
		if _, err := h.env.Client.CoreV1().Pods("default").UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			if err := r.RunOnce(ctx); err != nil {
				return false, err
			}
			rec := recommendationFor(h.getVPA(t, "web"), "app")
			mem := quantity(rec.Target, corev1.ResourceMemory)
			return mem.Value() > 380258472, nil
		})
		if err != nil {
			t.Fatalf("memory target never rose after the OOM kill: %v", err)
		}
	})

	t.Run("a failing metrics API gives a clear condition and nothing bogus", func(t *testing.T) {
		if _, err := h.env.Client.AppsV1().Deployments("default").Create(ctx, fixture.Deployment("api", 1), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		h.runningPod(t, "api-a", map[string]string{"app": "api"})
		h.createVPA(t, "api", "Deployment", "api", nil)
		webBefore := recommendationFor(h.getVPA(t, "web"), "app").DeepCopy()
		h.usage.setFailing(true)
		defer h.usage.setFailing(false)
		h.usage.setTime(h.clock.Now())
		err := r.RunOnce(ctx)
		var me *input.MetricsError
		if !errors.As(err, &me) {
			t.Fatalf("RunOnce error = %v, want a *input.MetricsError", err)
		}
		v := h.getVPA(t, "api")
		c := condition(v, vpav1.RecommendationProvided)
		if c == nil || c.Status != corev1.ConditionFalse || c.Reason != recommender.ReasonMetricsUnavailable || !strings.Contains(c.Message, "metrics.k8s.io") {
			t.Fatalf("RecommendationProvided = %+v, want False/MetricsUnavailable naming the API", c)
		}
		if v.Status.Recommendation != nil {
			t.Fatalf("a recommendation was written without any sample: %+v", v.Status.Recommendation)
		}
		webAfter := recommendationFor(h.getVPA(t, "web"), "app")
		if webAfter == nil || !quantity(webAfter.Target, corev1.ResourceCPU).Equal(quantity(webBefore.Target, corev1.ResourceCPU)) {
			t.Fatalf("web's recommendation changed while metrics failed: %+v -> %+v", webBefore, webAfter)
		}
	})

	t.Run("Run loops once per interval on the injected clock", func(t *testing.T) {
		testRunLoop(t, h)
	})

	t.Run("the recommender runs with the least-privilege RBAC of deploy/vpa/recommender", func(t *testing.T) {
		testDeployedRBAC(t, h)
	})

	t.Run("leader election: one runner at a time, the next takes over on release", func(t *testing.T) {
		testLeaderElection(t, h.env)
	})
}

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

// testLeaderElection runs two candidates on one Lease.
func testLeaderElection(t *testing.T, env *testenv.Env) {
	ctx := t.Context()
	le := recommender.LeaderElection{Enabled: true, Namespace: "default", Name: "vpa-recommender-test",
		LeaseDuration: 3 * time.Second, RenewDeadline: 2 * time.Second, RetryPeriod: 200 * time.Millisecond}
	leading := make(chan string, 2)
	start := func(id string) (context.CancelFunc, chan error) {
		cctx, cancel := context.WithCancel(ctx)
		l := le
		l.Identity = id
		done := make(chan error, 1)
		go func() {
			done <- recommender.RunLeading(cctx, env.Client, l, func(ctx context.Context) {
				leading <- id
				<-ctx.Done()
			})
		}()
		return cancel, done
	}
	stopA, doneA := start("a")
	if got := <-leading; got != "a" {
		t.Fatalf("first leader = %s, want a", got)
	}
	stopB, doneB := start("b")
	defer func() {
		stopB()
		if err := <-doneB; err != nil {
			t.Errorf("RunLeading(b) = %v", err)
		}
	}()
	lease, err := env.Client.CoordinationV1().Leases("default").Get(ctx, le.Name, metav1.GetOptions{})
	if err != nil || lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity != "a" {
		t.Fatalf("lease holder = %v, %v; want a", lease.Spec.HolderIdentity, err)
	}
	select {
	case id := <-leading:
		t.Fatalf("%s started leading while a held the lease", id)
	default:
	}
	stopA()
	if err := <-doneA; err != nil {
		t.Fatalf("RunLeading(a) after cancel = %v", err)
	}
	select {
	case got := <-leading:
		if got != "b" {
			t.Fatalf("second leader = %s, want b", got)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("b never took over the released lease")
	}
}

// testRunLoop runs Run on the fake clock and checks one loop per tick and
// the health check.
func testRunLoop(t *testing.T, h *harness) {
	reg := prometheus.NewRegistry()
	r := h.newRecommender(t, reg)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	h.usage.setTime(h.clock.Now())
	go func() { done <- r.Run(ctx) }()
	waitLoopAt := func(at time.Time) {
		t.Helper()
		err := wait.PollUntilContextTimeout(t.Context(), 20*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
			mfs, err := reg.Gather()
			if err != nil {
				return false, err
			}
			for _, mf := range mfs {
				if mf.GetName() == "kscale_vpa_recommender_last_loop_timestamp_seconds" {
					return mf.GetMetric()[0].GetGauge().GetValue() == float64(at.Unix()), nil
				}
			}
			return false, nil
		})
		if err != nil {
			t.Fatalf("no loop completed at %v: %v", at, err)
		}
	}
	waitLoopAt(h.clock.Now())
	if err := r.Healthy(h.clock.Now()); err != nil {
		t.Fatalf("Healthy after a loop: %v", err)
	}
	if err := r.Healthy(h.clock.Now().Add(6 * time.Minute)); err == nil {
		t.Fatal("Healthy six intervals after the last loop")
	}
	err := wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		return h.clock.HasWaiters(), nil
	})
	if err != nil {
		t.Fatal("Run never waited on its ticker")
	}
	h.clock.Step(time.Minute)
	h.usage.setTime(h.clock.Now())
	waitLoopAt(h.clock.Now())
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run returned %v after cancel", err)
	}
}
