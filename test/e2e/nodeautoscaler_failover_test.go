package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/cloudprovider/kwok"
	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/testenv"
)

// failoverCloudConfig: "preferred" is out of stock, "fallback" boots slowly
// enough to kill the leader while its nodes boot.
const failoverCloudConfig = `
nodeGroups:
- name: preferred
  max: 4
  instanceTypes: [m5.xlarge]
  labels: {pool: spill}
  bootTime: 2s
  capacity: 0
  stockoutError: {code: InsufficientInstanceCapacity, message: no m5.xlarge left}
- {name: fallback, max: 4, instanceTypes: [m5.xlarge], labels: {pool: spill}, bootTime: 15s}
`

// naReplica is one `kscale node-autoscaler` process.
type naReplica struct {
	child *testenv.Child
	addr  string
}

// TestNodeAutoscalerLeaderFailover runs two replicas of `kscale
// node-autoscaler` as separate processes, SIGKILLs the leader while the
// nodes of its scale-up are booting, and checks that the standby takes
// over without scaling up again and keeps the backoff of the out-of-stock
// group.
func TestNodeAutoscalerLeaderFailover(t *testing.T) {
	env, kubeconfig, cloudConfig := naSetup(t, failoverCloudConfig)
	replicas := map[string]*naReplica{}
	for _, name := range []string{"a", "b"} {
		replicas[name] = startNodeAutoscalerReplica(t, name, kubeconfig, cloudConfig)
	}
	first := naLeader(t, replicas)

	naDeploy(t, env, "spill", 2, "spill", "3")
	naPoll(t, "the leader to back off preferred and launch two fallback nodes", func(context.Context) (bool, error) {
		return naGroupNodes(t, env)["fallback"] == 2 && naMetric(t, replicas[first], `cluster_autoscaler_node_group_in_backoff{node_group="preferred"} 1`), nil
	})
	if n := naReadyNodes(t, env); n != 0 {
		t.Fatalf("%d nodes already Ready: the leader must be killed mid-scale-up; raise the fallback boot time", n)
	}
	replicas[first].child.Kill()
	delete(replicas, first)
	second := naLeader(t, replicas)

	// The new leader restored the backoff before its first loop, and the
	// booting nodes are adopted, not requested again.
	naPoll(t, "the new leader to report preferred backed off", func(context.Context) (bool, error) {
		return naMetric(t, replicas[second], `cluster_autoscaler_node_group_in_backoff{node_group="preferred"} 1`), nil
	})
	maxFallback := 0
	naPoll(t, "both pods running on the adopted nodes", func(ctx context.Context) (bool, error) {
		maxFallback = max(maxFallback, naGroupNodes(t, env)["fallback"])
		return naRunning(ctx, env, "spill") == 2, nil
	})
	if maxFallback != 2 {
		t.Errorf("fallback reached %d nodes, want 2: the new leader scaled up again", maxFallback)
	}

	// More load goes straight to the fallback: the new leader never tries
	// the backed-off group.
	naScale(t, env, "spill", 3)
	naExpectRunning(t, env, "spill", 3)
	naExpectGroupNodes(t, env, map[string]int{"fallback": 3})
	if naMetric(t, replicas[second], `cluster_autoscaler_failed_scale_ups_total{dra_drivers="",gpu_name="",gpu_resource_name="",reason="InsufficientInstanceCapacity"}`) {
		t.Error("the new leader tried the backed-off group again")
	}
}

// startNodeAutoscalerReplica starts the test binary as one replica.
func startNodeAutoscalerReplica(t *testing.T, name, kubeconfig, cloudConfig string) *naReplica {
	t.Helper()
	addr := naFreeAddress(t)
	args, err := json.Marshal([]string{"node-autoscaler", "--kubeconfig", kubeconfig, "--cloud-config", cloudConfig,
		"--address", addr, "--scan-interval=1s", "--expander=priority", "--scale-down-enabled=false",
		"--leader-elect-lease-duration=6s", "--leader-elect-renew-deadline=4s", "--leader-elect-retry-period=1s"})
	if err != nil {
		t.Fatal(err)
	}
	child := testenv.StartChild(t, "node-autoscaler-"+name, os.Args[0], []string{"-test.run=^$"}, []string{childArgsEnv + "=" + string(args)})
	return &naReplica{child: child, addr: addr}
}

// naLeader waits until exactly one replica runs the loop (its /metrics has
// the per-group series only while it leads) and returns its name.
func naLeader(t *testing.T, replicas map[string]*naReplica) string {
	t.Helper()
	var leader string
	naPoll(t, "one replica to lead", func(context.Context) (bool, error) {
		var leading []string
		for name, r := range replicas {
			if r.child.Exited() {
				return false, fmt.Errorf("replica %s exited:\n%s", name, r.child.LogTail())
			}
			if naMetric(t, r, "cluster_autoscaler_cluster_safe_to_autoscale 1") {
				leading = append(leading, name)
			}
		}
		if len(leading) > 1 {
			return false, fmt.Errorf("replicas %v lead at once", leading)
		}
		if len(leading) == 1 {
			leader = leading[0]
		}
		return leader != "", nil
	})
	return leader
}

// naMetric reports whether the replica's /metrics has a line starting with
// series (nothing when it does not answer yet).
func naMetric(t *testing.T, r *naReplica, series string) bool {
	t.Helper()
	body, ok := naTryGet(t.Context(), "http://"+r.addr+"/metrics")
	if !ok {
		return false
	}
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, series) {
			return true
		}
	}
	return false
}

// naReadyNodes counts the kwok nodes that are Ready.
func naReadyNodes(t *testing.T, env *testenv.Env) int {
	t.Helper()
	list, err := env.Client.CoreV1().Nodes().List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, node := range list.Items {
		if !strings.HasPrefix(node.Spec.ProviderID, kwok.ProviderIDPrefix) {
			continue
		}
		for _, c := range node.Status.Conditions {
			if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
				n++
			}
		}
	}
	return n
}

// naRunning counts the app's pods that are bound and Running.
func naRunning(ctx context.Context, env *testenv.Env, app string) int {
	pods, err := env.Client.CoreV1().Pods(fixture.DefaultNamespace).List(ctx, metav1.ListOptions{LabelSelector: "app=" + app})
	if err != nil {
		return -1
	}
	running := 0
	for _, p := range pods.Items {
		if p.Spec.NodeName != "" && p.Status.Phase == corev1.PodRunning {
			running++
		}
	}
	return running
}
