package cli

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kscale/kscale/internal/cloudprovider/kwok"
	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/nodeautoscaler/live"
	"github.com/kscale/kscale/internal/testenv"
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
`

// TestNodeAutoscalerEndToEnd runs `kscale node-autoscaler` with the kwok
// provider, under the ServiceAccount and RBAC of deploy/node-autoscaler,
// against the real kube-scheduler and kube-controller-manager.
func TestNodeAutoscalerEndToEnd(t *testing.T) {
	env := testenv.Start(t, testenv.Options{Scheduler: true, ControllerManager: true,
		// The stand-in kubelet renews node Leases every 10s, as kubelets do;
		// a faster node monitor lifts the not-ready taint of new nodes sooner.
		ControllerManagerFlags: []string{"--node-monitor-grace-period=30s", "--node-monitor-period=1s"}})
	ctx := t.Context()
	prio := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: live.PriorityConfigMapName, Namespace: "kube-system"},
		Data: map[string]string{live.PriorityConfigMapKey: "50: [preferred]\n10: ['.*']\n"}}
	if _, err := env.Client.CoreV1().ConfigMaps("kube-system").Create(ctx, prio, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The command runs as the deploy/ ServiceAccount, so its RBAC is proven sufficient.
	applyManifests(t, vpaTestClient(t, env), "../../deploy/node-autoscaler", "serviceaccount.yaml", "rbac.yaml")
	kubeconfig := serviceAccountKubeconfig(t, env, "kscale-node-autoscaler")
	cloudConfig := filepath.Join(t.TempDir(), "cloud.yaml")
	if err := os.WriteFile(cloudConfig, []byte(e2eCloudConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := naFreeAddress(t)
	runCtx, stop := context.WithCancel(ctx)
	cmd := newNodeAutoscalerCommand()
	cmd.SetArgs([]string{"--kubeconfig", kubeconfig, "--cloud-config", cloudConfig, "--address", addr,
		"--scan-interval=1s", "--expander=priority",
		"--scale-down-unneeded-time=3s", "--scale-down-delay-after-add=-1s", "--scale-down-delay-after-delete=1s",
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
		if got := naGet(t, "http://"+addr+"/healthz"); got != "ok" {
			t.Errorf("/healthz = %q", got)
		}
	})
	t.Run("load drops and empty nodes are removed", func(t *testing.T) {
		naScale(t, env, "wide", 0)
		naPoll(t, "the big nodes removed", func(ctx context.Context) (bool, error) {
			return naGroupNodes(t, env)["big"] == 0, nil
		})
		naExpectGroupNodes(t, env, map[string]int{"fallback": 2})
		naExpectRunning(t, env, "spill", 2)
	})
	t.Run("the loop recovers after the API server was briefly unavailable", func(t *testing.T) {
		env.StopAPIServer()
		if got := naGet(t, "http://"+addr+"/healthz"); got != "ok" {
			t.Errorf("/healthz during a brief outage = %q, want ok (within --max-inactivity)", got)
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
			fixture.WithAnnotations(map[string]string{kwok.AnnotationRunTime: "8s"}))
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
}

func naDeploy(t *testing.T, env *testenv.Env, name string, replicas int32, pool, cpu string) {
	t.Helper()
	d := fixture.Deployment(name, replicas, fixture.WithRequests("cpu", cpu, "memory", "1Gi"),
		fixture.WithNodeSelector(map[string]string{"pool": pool}))
	if _, err := env.Client.AppsV1().Deployments(d.Namespace).Create(t.Context(), d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// naScale sets a deployment's replicas.
func naScale(t *testing.T, env *testenv.Env, name string, replicas int32) {
	t.Helper()
	d, err := env.Client.AppsV1().Deployments(fixture.DefaultNamespace).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d.Spec.Replicas = &replicas
	if _, err := env.Client.AppsV1().Deployments(fixture.DefaultNamespace).Update(t.Context(), d, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// naExpectRunning waits until the deployment's pods are bound by the
// scheduler and running on kwok nodes.
func naExpectRunning(t *testing.T, env *testenv.Env, app string, n int) {
	t.Helper()
	naPoll(t, fmt.Sprintf("%d pods of %s bound and running", n, app), func(ctx context.Context) (bool, error) {
		pods, err := env.Client.CoreV1().Pods(fixture.DefaultNamespace).List(ctx, metav1.ListOptions{LabelSelector: "app=" + app})
		if err != nil {
			return false, err
		}
		running := 0
		for _, p := range pods.Items {
			if p.Spec.NodeName != "" && p.Status.Phase == corev1.PodRunning {
				running++
			}
		}
		return running == n, nil
	})
}

// expectGroupNodes checks the number of kwok nodes per group.
func naExpectGroupNodes(t *testing.T, env *testenv.Env, want map[string]int) {
	t.Helper()
	if got := naGroupNodes(t, env); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("nodes per group %v, want %v", got, want)
	}
}

// naGroupNodes counts the kwok nodes per group.
func naGroupNodes(t *testing.T, env *testenv.Env) map[string]int {
	t.Helper()
	list, err := env.Client.CoreV1().Nodes().List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, n := range list.Items {
		if rest, ok := strings.CutPrefix(n.Spec.ProviderID, kwok.ProviderIDPrefix); ok {
			g, _, _ := strings.Cut(rest, "/")
			got[g]++
		}
	}
	return got
}

func naPoll(t *testing.T, what string, cond wait.ConditionWithContextFunc) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(t.Context(), 200*time.Millisecond, 60*time.Second, true, cond); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

func naFreeAddress(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

func naGet(t *testing.T, url string) string {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
