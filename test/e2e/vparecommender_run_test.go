package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	vpaclientset "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/client/clientset/versioned"

	"github.com/kscale/kscale/deploy/vpa/crds"
	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/testenv"
)

// TestVPARecommenderCommandAgainstControlPlane runs the command itself
// (flags, clients, informers, leader election, loop) against a control
// plane without a metrics API: the VPA must get a clear condition.
func TestVPARecommenderCommandAgainstControlPlane(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	ctx := t.Context()
	if err := crds.Install(ctx, env.Config, time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Client.AppsV1().Deployments("default").Create(ctx, fixture.Deployment("web", 1), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	vc := vpaclientset.NewForConfigOrDie(env.Config)
	vpa := &vpav1.VerticalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec:       vpav1.VerticalPodAutoscalerSpec{TargetRef: &autoscalingv1.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"}},
	}
	if _, err := vc.AutoscalingV1().VerticalPodAutoscalers("default").Create(ctx, vpa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := command("vpa-recommender")
	port := freePort(t)
	cmd.SetArgs([]string{"--kubeconfig", env.KubeconfigPath, "--address", fmt.Sprintf("127.0.0.1:%d", port), "--recommender-interval", "1s",
		"--leader-elect", "--leader-elect-resource-namespace", "default"})
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(runCtx) }()

	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		v, err := vc.AutoscalingV1().VerticalPodAutoscalers("default").Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range v.Status.Conditions {
			if c.Type == vpav1.RecommendationProvided && c.Status == corev1.ConditionFalse && c.Reason == "MetricsUnavailable" {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("the command never reported MetricsUnavailable on the VPA: %v", err)
	}
	lease, err := env.Client.CoordinationV1().Leases("default").Get(ctx, "vpa-recommender-lease", metav1.GetOptions{})
	if err != nil || lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
		t.Fatalf("leader lease = %+v, %v", lease, err)
	}
	// Metric conformance: upstream's vpa_recommender_* families.
	body := waitHTTP(t, fmt.Sprintf("http://127.0.0.1:%d/metrics", port), "vpa_recommender_vpa_objects_count")
	checkMetricConformance(t, body, "vpa_recommender_", upstreamVPARecommenderFamilies, nil, vpaRecommenderNotYetExported)
	// The control plane serves no metrics.k8s.io: every list failed.
	if !strings.Contains(body, `vpa_recommender_metric_server_responses{client_name="default-metrics-client",is_error="true"} `) ||
		strings.Contains(body, `is_error="false"`) {
		t.Errorf("metric_server_responses:\n%s", grepLines(body, "metric_server_responses"))
	}
	if got := waitHTTP(t, fmt.Sprintf("http://127.0.0.1:%d/health-check", port), "OK"); got != "OK" {
		t.Errorf("/health-check = %q", got)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("command returned %v after cancel", err)
	}
}
