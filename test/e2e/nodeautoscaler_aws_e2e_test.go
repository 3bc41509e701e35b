package e2e

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	astypes "github.com/aws/aws-sdk-go-v2/service/autoscaling/types"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/aws"
	"github.com/kscale/kscale/internal/cloudprovider/aws/awstest"
	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/nodeautoscaler/live"
	"github.com/kscale/kscale/internal/testenv"
)

const awsStockout = "Could not launch On-Demand Instances. InsufficientInstanceCapacity - We currently do not have sufficient m5.xlarge " +
	"capacity in the Availability Zone you requested (eu-central-1a). Launching EC2 instance failed."

// TestNodeAutoscalerAWSEndToEnd runs `kscale node-autoscaler
// --cloud-provider=aws` under the ServiceAccount and RBAC of
// deploy/node-autoscaler-aws against moto (behind the fault-injecting
// proxy), the real kube-scheduler and kube-controller-manager, a stand-in
// that registers a Node for every running moto instance, and the real kwok
// controller as those nodes' kubelets.
func TestNodeAutoscalerAWSEndToEnd(t *testing.T) {
	moto := awstest.StartMoto(t)
	proxy := awstest.StartProxy(t, moto.URL)
	seedAWSGroups(t, moto.URL)
	env := testenv.Start(t, testenv.Options{Scheduler: true, ControllerManager: true, Kwok: true,
		ControllerManagerFlags: []string{"--node-monitor-grace-period=30s", "--node-monitor-period=1s"}})
	prio := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: live.PriorityConfigMapName, Namespace: "kube-system"},
		Data: map[string]string{live.PriorityConfigMapKey: "50: [preferred]\n10: ['.*']\n"}}
	if _, err := env.Client.CoreV1().ConfigMaps("kube-system").Create(t.Context(), prio, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	applyManifests(t, vpaTestClient(t, env), "../../deploy/node-autoscaler-aws", "serviceaccount.yaml", "rbac.yaml")
	kubeconfig := serviceAccountKubeconfig(t, env, "kscale-node-autoscaler")
	for k, v := range awstest.Env(proxy.URL) {
		t.Setenv(k, v)
	}
	kubelet := awstest.NewKubelet(t, env.Client, moto.URL, time.Second)
	kubelet.LaunchedType("abs", "m5.xlarge") // one of the types the requirements select
	kubelet.Start(t)
	seed := awstest.NewSeeder(t, moto.URL)

	addr := naFreeAddress(t)
	stop := startAWSNodeAutoscaler(t, kubeconfig, addr)
	t.Run("a deployment that does not fit scales the right ASG until every pod runs", func(t *testing.T) {
		naDeploy(t, env, "wide", 3, "general", "1500m") // one per m5.large (2 CPU)
		naExpectRunning(t, env, "wide", 3)
		if got := awsGroupNodes(t, env); fmt.Sprint(got) != "map[general:3]" {
			t.Errorf("nodes per pool %v, want 3 general", got)
		}
		for name, want := range map[string]int32{"general": 3, "preferred": 0, "fallback": 0} {
			if got := *seed.Describe(name).DesiredCapacity; got != want {
				t.Errorf("ASG %s desired capacity %d, want %d", name, got, want)
			}
		}
	})
	t.Run("a stocked-out ASG fails over to the next priority within two loops and keeps its sentinel", func(t *testing.T) {
		proxy.StockOut("preferred", 0, awsStockout)
		naDeploy(t, env, "spill", 2, "spill", "3") // one per m5.xlarge (4 CPU)
		naExpectRunning(t, env, "spill", 2)
		if n := len(awsNodesOf(t, env, "spill")); n != 2 {
			t.Errorf("%d spill nodes, want 2 (fallback)", n)
		}
		log := proxy.Log()
		first := slices.IndexFunc(log, func(e string) bool { return strings.HasPrefix(e, "SetDesiredCapacity preferred ") })
		fallback := slices.IndexFunc(log, func(e string) bool { return strings.HasPrefix(e, "SetDesiredCapacity fallback ") })
		if first < 0 || fallback < first {
			t.Fatalf("requests %v: want preferred scaled up before fallback", log)
		}
		loops := 0
		for _, e := range log[first:fallback] {
			if e == "DescribeAutoScalingGroups" {
				loops++
			}
		}
		t.Logf("requests from the stocked-out scale-up to the fallback's:\n%s", strings.Join(log[first:fallback+1], "\n"))
		if loops > 2 {
			t.Errorf("fallback scaled up %d loops after the stocked-out group, want at most 2:\n%s", loops, strings.Join(log[first:fallback+1], "\n"))
		}
		naPoll(t, "the stocked-out ASG to keep one sentinel", func(context.Context) (bool, error) {
			return proxy.Desired("preferred") == 1, nil
		})
		metrics := naGet(t, "http://"+addr+"/metrics")
		for _, want := range []string{`cluster_autoscaler_node_group_in_backoff{node_group="preferred"} 1`,
			`cluster_autoscaler_aws_request_duration_seconds_count{endpoint="DescribeScalingActivities",status="success"}`} {
			if !strings.Contains(metrics, want) {
				t.Errorf("/metrics lacks %s", want)
			}
		}
	})
	t.Run("load drops and the instances are terminated through the ASG", func(t *testing.T) {
		naScale(t, env, "wide", 0)
		naPoll(t, "the general nodes removed", func(context.Context) (bool, error) {
			return len(awsNodesOf(t, env, "general")) == 0, nil
		})
		if got := *seed.Describe("general").DesiredCapacity; got != 0 {
			t.Errorf("ASG general desired capacity %d, want 0", got)
		}
		if n := proxy.Calls("TerminateInstanceInAutoScalingGroup"); n != 3 {
			t.Errorf("%d TerminateInstanceInAutoScalingGroup calls, want 3", n)
		}
		if proxy.Desired("preferred") != 1 {
			t.Errorf("the sentinel was removed: preferred desired %d", proxy.Desired("preferred"))
		}
	})
	t.Run("an attribute-based group and an EKS managed node group scale from zero with labels and taints from their source", func(t *testing.T) {
		naDeploy(t, env, "abs", 2, "abs", "3") // one per 4-CPU node: the minimum of m5.xlarge, m5.2xlarge, r5.xlarge, r5.2xlarge
		d := fixture.Deployment("data", 2, fixture.WithRequests("cpu", "1500m", "memory", "1Gi"), fixture.WithNodeSelector(map[string]string{"team": "data"}),
			fixture.WithTolerations(corev1.Toleration{Key: "dedicated", Value: "data", Operator: corev1.TolerationOpEqual, Effect: corev1.TaintEffectNoSchedule}))
		if _, err := env.Client.AppsV1().Deployments(d.Namespace).Create(t.Context(), d, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		// A pod that does not tolerate the node group's taint must not
		// grow it: the template has the taint from DescribeNodegroup.
		intolerant := fixture.Pod("intolerant", fixture.WithRequests("cpu", "100m"), fixture.WithNodeSelector(map[string]string{"team": "data"}))
		if _, err := env.Client.CoreV1().Pods(intolerant.Namespace).Create(t.Context(), intolerant, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		naExpectRunning(t, env, "abs", 2)
		naExpectRunning(t, env, "data", 2)
		naPoll(t, "a NotTriggerScaleUp event on the intolerant pod", func(ctx context.Context) (bool, error) {
			ev, err := env.Client.CoreV1().Events(intolerant.Namespace).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=intolerant"})
			if err != nil {
				return false, err
			}
			return slices.ContainsFunc(ev.Items, func(e corev1.Event) bool { return e.Reason == "NotTriggerScaleUp" }), nil
		})
		// The ASGs carry no team label or taint tags: the templates' labels
		// came from the requirements' types and from EKS.
		for name, want := range map[string]int32{"abs": 2, "eks-data": 2} {
			if got := *seed.Describe(name).DesiredCapacity; got != want {
				t.Errorf("ASG %s desired capacity %d, want %d", name, got, want)
			}
		}
		if err := env.Client.CoreV1().Pods(intolerant.Namespace).Delete(t.Context(), intolerant.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		naScale(t, env, "abs", 0)
		naScale(t, env, "data", 0)
		naPoll(t, "the abs and EKS nodes removed", func(context.Context) (bool, error) {
			return len(awsNodesOf(t, env, "abs")) == 0 && *seed.Describe("eks-data").DesiredCapacity == 0, nil
		})
	})
	t.Run("a restart keeps the backoff", func(t *testing.T) {
		stop()
		before := proxy.Calls("SetDesiredCapacity")
		preferred := countPrefix(proxy.Log(), "SetDesiredCapacity preferred ")
		addr := naFreeAddress(t)
		startAWSNodeAutoscaler(t, kubeconfig, addr)
		naPoll(t, "the new process to report preferred backed off", func(ctx context.Context) (bool, error) {
			body, ok := naTryGet(ctx, "http://"+addr+"/metrics")
			return ok && strings.Contains(body, `cluster_autoscaler_node_group_in_backoff{node_group="preferred"} 1`), nil
		})
		naScale(t, env, "spill", 3)
		naExpectRunning(t, env, "spill", 3)
		if n := countPrefix(proxy.Log(), "SetDesiredCapacity preferred "); n != preferred {
			t.Errorf("the restarted process scaled the backed-off group again (%d calls, had %d)", n, preferred)
		}
		if proxy.Calls("SetDesiredCapacity") == before {
			t.Error("no scale-up after the restart")
		}
	})
}

// seedAWSGroups creates the ASGs: general (m5.large), the spill pool's
// preferred and fallback groups (m5.xlarge), abs (attribute-based: 4–8
// vCPUs, 16 GiB or more, m5 or r5) and eks-data (the ASG of EKS managed
// node group "data", label team=data, taint dedicated=data:NoSchedule),
// all tagged for discovery.
func seedAWSGroups(t *testing.T, motoURL string) {
	seed := awstest.NewSeeder(t, motoURL)
	seed.LaunchTemplate("general", "m5.large")
	seed.LaunchTemplate("spill", "m5.xlarge")
	tags := func(pool string) map[string]string {
		return map[string]string{"k8s.io/cluster-autoscaler/enabled": "true", "k8s.io/cluster-autoscaler/e2e": "owned",
			cloudprovider.TagLabelPrefix + "pool": pool}
	}
	seed.Group(awstest.Group{Name: "general", Max: 3, Template: "general", Tags: tags("general")})
	seed.Group(awstest.Group{Name: "preferred", Max: 3, Template: "spill", Tags: tags("spill")})
	seed.Group(awstest.Group{Name: "fallback", Max: 3, Template: "spill", Tags: tags("spill")})
	seed.LaunchTemplate("abs", "")
	seed.Group(awstest.Group{Name: "abs", Max: 3, Template: "abs", Tags: tags("abs"), Requirements: &astypes.InstanceRequirements{
		VCpuCount: &astypes.VCpuCountRequest{Min: awssdk.Int32(4), Max: awssdk.Int32(8)}, MemoryMiB: &astypes.MemoryMiBRequest{Min: awssdk.Int32(16384)},
		AllowedInstanceTypes: []string{"m5.*", "r5.*"}}})
	seed.Nodegroup("e2e", "data", map[string]string{"team": "data"},
		[]ekstypes.Taint{{Key: awssdk.String("dedicated"), Value: awssdk.String("data"), Effect: ekstypes.TaintEffectNoSchedule}})
	eksTags := tags("eks")
	maps.Copy(eksTags, awstest.NodegroupTags("e2e", "data"))
	seed.Group(awstest.Group{Name: "eks-data", Max: 3, Template: "general", Tags: eksTags})
}

// startAWSNodeAutoscaler runs the command in-process and returns a func
// that stops it (also called when the test ends).
func startAWSNodeAutoscaler(t *testing.T, kubeconfig, addr string) func() {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := command("node-autoscaler")
	cmd.SetArgs([]string{"--kubeconfig", kubeconfig, "--cloud-provider=aws", "--address", addr,
		"--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/e2e",
		"--aws-refresh-interval=0s", "--scan-interval=1s", "--expander=priority", "--backoff-no-full-scale-down",
		"--scale-down-unneeded-time=3s", "--scale-down-delay-after-add=-1s", "--scale-down-delay-after-delete=1s",
		naRecheckSoon,
		"--leader-elect-lease-duration=6s", "--leader-elect-renew-deadline=4s", "--leader-elect-retry-period=1s"})
	cmd.SetContext(ctx)
	done := make(chan error, 1)
	go func() { done <- cmd.Execute() }()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			t.Errorf("node-autoscaler: %v", err)
		}
	}
	t.Cleanup(stop)
	return stop
}

// awsGroupNodes counts the AWS nodes per pool label.
func awsGroupNodes(t *testing.T, env *testenv.Env) map[string]int {
	t.Helper()
	list, err := env.Client.CoreV1().Nodes().List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, n := range list.Items {
		if strings.HasPrefix(n.Spec.ProviderID, aws.ProviderIDPrefix) {
			got[n.Labels["pool"]]++
		}
	}
	return got
}

// awsNodesOf lists the AWS nodes of a pool.
func awsNodesOf(t *testing.T, env *testenv.Env, pool string) []string {
	t.Helper()
	list, err := env.Client.CoreV1().Nodes().List(t.Context(), metav1.ListOptions{LabelSelector: "pool=" + pool})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, n := range list.Items {
		out = append(out, n.Name)
	}
	return out
}

func countPrefix(log []string, prefix string) int {
	n := 0
	for _, e := range log {
		if strings.HasPrefix(e, prefix) {
			n++
		}
	}
	return n
}
