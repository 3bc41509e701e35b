package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	kwokstages "github.com/kscale/kscale/deploy/kwok"
	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/nodeautoscaler/live"
)

// e2eCloudConfig are the kwok node groups of the end-to-end test. The
// "spill" pool has a preferred group that has no capacity and a fallback.
const e2eCloudConfig = `
nodeGroups:
- {name: small, max: 3, instanceTypes: [m5.large], labels: {pool: small}, bootTime: 2s}
- {name: big, max: 3, instanceTypes: [m5.2xlarge], labels: {pool: big}, bootTime: 2s}
- name: preferred
  max: 3
  instanceTypes: [m5.xlarge]
  labels: {pool: spill}
  bootTime: 2s
  capacity: 0
  stockoutError: {code: InsufficientInstanceCapacity, message: no m5.xlarge left}
- {name: fallback, max: 3, instanceTypes: [m5.xlarge], labels: {pool: spill}, bootTime: 2s}
- {name: guarded, max: 8, instanceTypes: [m5.large], labels: {pool: guarded}, bootTime: 2s}
`

// TestNodeAutoscalerEndToEnd runs `kscale node-autoscaler` with the kwok
// provider, under the ServiceAccount and RBAC of deploy/node-autoscaler,
// against the real kube-scheduler and kube-controller-manager.
func TestNodeAutoscalerEndToEnd(t *testing.T) {
	env, kubeconfig, cloudConfig := naSetup(t, e2eCloudConfig)
	ctx := t.Context()
	addr := naFreeAddress(t)
	runCtx, stop := context.WithCancel(ctx)
	cmd := command("node-autoscaler")
	cmd.SetArgs([]string{"--kubeconfig", kubeconfig, "--cloud-config", cloudConfig, "--address", addr,
		"--scan-interval=1s", "--expander=priority", "--emit-per-nodegroup-metrics", "--node-removal-latency-tracking-enabled",
		"--scale-down-unneeded-time=3s", "--scale-down-delay-after-add=-1s", "--scale-down-delay-after-delete=1s",
		// Seconds, like the times above: a node its Job pod kept is
		// simulated again soon after the Job finishes.
		"--unremovable-node-recheck-timeout=2s",
		// Long enough for the leader to keep its Lease through the brief
		// API server outage below.
		"--leader-elect-lease-duration=40s", "--leader-elect-renew-deadline=30s", "--leader-elect-retry-period=1s"})
	cmd.SetContext(runCtx)
	done := make(chan error, 1)
	go func() { done <- cmd.Execute() }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("node-autoscaler: %v", err)
		}
	})

	t.Run("a deployment that does not fit scales up the right group", func(t *testing.T) {
		naDeploy(t, env, "wide", 4, "big", "3")
		naExpectRunning(t, env, "wide", 4)
		naExpectGroupNodes(t, env, map[string]int{"big": 2})
		// Pods that arrive while the nodes are upcoming fit on them and
		// trigger nothing; the ones that caused the scale-up say so.
		naExpectEventOn(t, env, fixture.DefaultNamespace, "TriggeredScaleUp", "wide-", "pod triggered scale-up: [{big ")
	})
	t.Run("a pod no group can help is told why", func(t *testing.T) {
		naDeploy(t, env, "huge", 1, "big", "64")
		naExpectEventOn(t, env, fixture.DefaultNamespace, "NotTriggerScaleUp", "huge-", "pod didn't trigger scale-up: ", "Insufficient cpu")
		if err := env.Client.AppsV1().Deployments(fixture.DefaultNamespace).Delete(ctx, "huge", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a group out of capacity backs off and the next priority takes over", func(t *testing.T) {
		naDeploy(t, env, "spill", 2, "spill", "3")
		naExpectRunning(t, env, "spill", 2)
		naExpectGroupNodes(t, env, map[string]int{"big": 2, "fallback": 2}) // one 3-CPU pod per m5.xlarge
		naPoll(t, "status ConfigMap shows the backoff", func(ctx context.Context) (bool, error) {
			cm, err := env.Client.CoreV1().ConfigMaps("kube-system").Get(ctx, live.StatusConfigMapName, metav1.GetOptions{})
			if err != nil {
				return false, nil
			}
			s := cm.Data[live.StatusConfigMapKey]
			return strings.Contains(s, "autoscalerStatus: Running") && strings.Contains(s, "errorCode: InsufficientInstanceCapacity"), nil
		})
		metrics := naGet(t, "http://"+addr+"/metrics")
		for _, want := range []string{`cluster_autoscaler_node_group_in_backoff{node_group="preferred"} 1`,
			`cluster_autoscaler_node_group_backoff_status{node_group="preferred",reason="InsufficientInstanceCapacity"} 1`} {
			if !strings.Contains(metrics, want) {
				t.Errorf("/metrics lacks %s", want)
			}
		}
		// Metric conformance: names, types and label names as upstream's.
		checkMetricConformance(t, metrics, "cluster_autoscaler_", upstreamCAFamilies, kscaleCAFamilies,
			append(slices.Clone(caNotYetExported), "node_removal_latency_seconds"))
		if got := naGet(t, "http://"+addr+"/health-check"); got != "OK" {
			t.Errorf("/health-check = %q", got)
		}
	})
	t.Run("load drops and empty nodes are removed", func(t *testing.T) {
		bigNodes := naGroupNodeNames(t, env, "big")
		naScale(t, env, "wide", 0)
		naPoll(t, "the big nodes removed", func(ctx context.Context) (bool, error) {
			return naGroupNodes(t, env)["big"] == 0, nil
		})
		for _, n := range bigNodes {
			naExpectEvent(t, env, fixture.DefaultNamespace, n, "ScaleDown", "nodes removed by cluster autoscaler")
		}
		naExpectGroupNodes(t, env, map[string]int{"fallback": 2})
		naExpectRunning(t, env, "spill", 2)
		// The removed nodes waited beyond their unneeded time: the latency
		// histogram has series now, and every family conforms.
		metrics := naGet(t, "http://"+addr+"/metrics")
		if !strings.Contains(metrics, `cluster_autoscaler_node_removal_latency_seconds_count{delay_reason="none",deleted="true"}`) {
			t.Errorf("/metrics lacks the removal latency of the deleted nodes:\n%s", grepLines(metrics, "node_removal_latency_seconds_count"))
		}
		checkMetricConformance(t, metrics, "cluster_autoscaler_", upstreamCAFamilies, kscaleCAFamilies, caNotYetExported)
	})
	t.Run("the loop recovers after the API server was briefly unavailable", func(t *testing.T) {
		env.StopAPIServer()
		if got := naGet(t, "http://"+addr+"/health-check"); got != "OK" {
			t.Errorf("/health-check during a brief outage = %q, want OK (within --max-inactivity)", got)
		}
		if err := env.StartAPIServer(ctx); err != nil {
			t.Fatal(err)
		}
		naDeploy(t, env, "after-outage", 1, "small", "1")
		naExpectRunning(t, env, "after-outage", 1)
		naExpectGroupNodes(t, env, map[string]int{"fallback": 2, "small": 1})
	})
	t.Run("a Job pod keeps its node until the Job finishes", func(t *testing.T) {
		job := fixture.Job("batch", 1, 1, fixture.WithRequests("cpu", "500m", "memory", "256Mi"),
			fixture.WithNodeSelector(map[string]string{"pool": "small"}),
			fixture.WithAnnotations(map[string]string{kwokstages.AnnotationRunTime: "8s"}))
		if _, err := env.Client.BatchV1().Jobs(job.Namespace).Create(ctx, job, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		naExpectRunning(t, env, "batch", 1)
		// The small node is now underutilized and unneeded after 3s, but the
		// Job pod blocks its removal until it has succeeded.
		naScale(t, env, "after-outage", 0)
		naPoll(t, "the Job to complete while its node stays", func(ctx context.Context) (bool, error) {
			if naGroupNodes(t, env)["small"] != 1 {
				return false, fmt.Errorf("the small node was removed while the Job was running")
			}
			j, err := env.Client.BatchV1().Jobs(job.Namespace).Get(ctx, "batch", metav1.GetOptions{})
			return err == nil && j.Status.Succeeded == 1, err
		})
		naPoll(t, "the small node removed after the Job", func(context.Context) (bool, error) {
			return naGroupNodes(t, env)["small"] == 0, nil
		})
	})
	t.Run("load drops and pods are evicted within their PDB before the node goes", func(t *testing.T) {
		naDeploy(t, env, "ballast", 2, "small", "1200m") // one m5.large each
		naExpectRunning(t, env, "ballast", 2)
		naPoll(t, "both small nodes Ready without taints", func(ctx context.Context) (bool, error) {
			return naSchedulableNodes(ctx, env, "small") == 2, nil
		})
		honor := corev1.NodeInclusionPolicyHonor
		movable := fixture.Deployment("movable", 2, fixture.WithRequests("cpu", "300m", "memory", "256Mi"),
			fixture.WithNodeSelector(map[string]string{"pool": "small"}),
			fixture.WithTopologySpread(corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: corev1.LabelHostname,
				WhenUnsatisfiable: corev1.DoNotSchedule, NodeTaintsPolicy: &honor,
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "movable"}}}))
		if _, err := env.Client.AppsV1().Deployments(movable.Namespace).Create(ctx, movable, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		pdb := fixture.PDB("movable", "movable", fixture.MinAvailable(intstr.FromInt32(1)))
		if _, err := env.Client.PolicyV1().PodDisruptionBudgets(pdb.Namespace).Create(ctx, pdb, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		naExpectRunning(t, env, "movable", 2)
		if nodes := naPodNodes(t, env, "movable"); len(nodes) != 2 {
			t.Fatalf("movable pods on nodes %v, want one per node (the spread constraint)", nodes)
		}
		watch := watchPDB(t, env, "movable")
		naScale(t, env, "ballast", 0)
		naPoll(t, "one small node drained and removed", func(ctx context.Context) (bool, error) {
			return naGroupNodes(t, env)["small"] == 1 && naRunningOnLiveNodes(ctx, env, "movable") == 2, nil
		})
		disrupted, broken := watch.result()
		if !disrupted {
			t.Error("no pod was evicted through the eviction API (the PDB never listed a disrupted pod)")
		}
		if broken != "" {
			t.Errorf("the PDB was broken: %s", broken)
		}
	})
	t.Run("a group whose new nodes another controller taints NoExecute is not scaled up again and again", func(t *testing.T) {
		created := naTaintNewNodes(t, env, "guarded", corev1.Taint{Key: "dedicated", Value: "other", Effect: corev1.TaintEffectNoExecute})
		naDeploy(t, env, "tainted", 1, "guarded", "500m")
		naExpectEventOn(t, env, "kube-system", "TemplateMismatch", "", "taint dedicated=other:NoExecute not on the template")
		naExpectEventOn(t, env, fixture.DefaultNamespace, "NotTriggerScaleUp", "tainted-", "dedicated")
		// Without the guard a node is added every time the last one turns
		// Ready (about every 3s here); let 15 more loops pass.
		naWaitLoops(t, env, 15)
		if n := created(); n > 2 {
			t.Errorf("%d guarded nodes created for one pod, want at most 2", n)
		}
		metrics := naGet(t, "http://"+addr+"/metrics")
		if want := `kscale_node_group_template_mismatch{node_group="guarded"} 1`; !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
		cm, err := env.Client.CoreV1().ConfigMaps("kube-system").Get(ctx, live.StatusConfigMapName, metav1.GetOptions{})
		if err != nil || !strings.Contains(cm.Data[live.StatusConfigMapKey], "templateMismatch:") {
			t.Errorf("status ConfigMap has no templateMismatch condition (err %v)", err)
		}
		naPoll(t, "the needless guarded node removed", func(context.Context) (bool, error) {
			return naGroupNodes(t, env)["guarded"] == 0, nil
		})
		if n := created(); n > 2 {
			t.Errorf("%d guarded nodes created for one pod, want at most 2", n)
		}
	})
}
