package recommender_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/vpa/features"
	"github.com/kscale/kscale/internal/vpa/input"
	"github.com/kscale/kscale/internal/vpa/model"
	"github.com/kscale/kscale/internal/vpa/recommender"
	"github.com/kscale/kscale/internal/vpa/target"
)

var t0 = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

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
		// One metrics.k8s.io list per loop, none failed.
		ok := counterValue(t, reg, "vpa_recommender_metric_server_responses", map[string]string{"is_error": "false", "client_name": "default-metrics-client"})
		if ok != 30 {
			t.Errorf("metric_server_responses{is_error=false} = %v, want 30 (one per loop)", ok)
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

	t.Run("with PerVPAConfig a VPA's oomBumpUpRatio sizes the OOM bump", func(t *testing.T) {
		for _, name := range []string{"oomdef", "oombump"} {
			if _, err := h.env.Client.AppsV1().Deployments("default").Create(ctx, fixture.Deployment(name, 1), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			h.runningPod(t, name+"-a", map[string]string{"app": name})
			h.usage.set("default", name+"-a", "app", "500m", "300Mi")
		}
		h.createVPA(t, "oomdef", "Deployment", "oomdef", nil)
		ratio := resource.MustParse("3")
		h.createVPA(t, "oombump", "Deployment", "oombump", &vpav1.PodResourcePolicy{ContainerPolicies: []vpav1.ContainerResourcePolicy{{
			ContainerName: "app", OOMBumpUpRatio: &ratio,
		}}})
		rp, err := recommender.New(perVPAConfig(), withRegistry(h.deps, prometheus.NewRegistry()))
		if err != nil {
			t.Fatal(err)
		}
		h.loop(t, rp, 3)
		for _, name := range []string{"oomdef-a", "oombump-a"} {
			p, err := h.env.Client.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			p.Status.ContainerStatuses[0].State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				Reason: "OOMKilled", ExitCode: 137, StartedAt: metav1.NewTime(t0), FinishedAt: metav1.NewTime(h.clock.Now())}}
			p.Status.ContainerStatuses[0].Ready = false
			if _, err := h.env.Client.CoreV1().Pods("default").UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		// 300 MiB in use: the default bump feeds max(300+100 MiB, 1.2×) =
		// 400 MiB, ratio 3 feeds 900 MiB.
		var def, bumped int64
		err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			if err := rp.RunOnce(ctx); err != nil {
				return false, err
			}
			d, b := quantity(recommendationFor(h.getVPA(t, "oomdef"), "app").Target, corev1.ResourceMemory), quantity(recommendationFor(h.getVPA(t, "oombump"), "app").Target, corev1.ResourceMemory)
			def, bumped = d.Value(), b.Value()
			return def > 400*1024*1024 && bumped > 900*1024*1024, nil
		})
		if err != nil {
			t.Fatalf("memory targets after the OOM kills: default %d, ratio 3 %d; want above 400 MiB and 900 MiB: %v", def, bumped, err)
		}
		if bumped > 2*def+def/4 {
			t.Errorf("ratio 3 target %d is more than 2.25× the default target %d (900 vs 400 MiB fed)", bumped, def)
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
}

// perVPAConfig is the default Config with the PerVPAConfig gate on.
func perVPAConfig() recommender.Config {
	c := recommender.DefaultConfig()
	c.Features = features.Gates{PerVPAConfig: true}
	return c
}
