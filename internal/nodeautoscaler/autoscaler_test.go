package nodeautoscaler

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/inmemory"
	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/nodeautoscaler/options"
	"github.com/kscale/kscale/internal/nodeautoscaler/scaledown"
)

// staticCluster is a fixed cluster view for loop tests; each View indexes
// its pods afresh, in list order.
type staticCluster struct {
	nodes []*corev1.Node
	pods  []*corev1.Pod
}

func (c *staticCluster) View(context.Context) (*View, error) {
	return &View{Nodes: c.nodes, Pods: indexOf(c.pods), Controllers: scaledown.EveryControllerExists{}}, nil
}

// indexOf returns a PodIndex of pods, set in list order.
func indexOf(pods []*corev1.Pod) *PodIndex {
	x := NewPodIndex()
	for _, p := range pods {
		x.Set(p)
	}
	return x
}

type events []Event

func (e *events) Record(_ context.Context, ev Event) { *e = append(*e, ev) }

func newLoop(t *testing.T, mutate func(*options.Options)) (*Autoscaler, *inmemory.Cloud, *staticCluster, *events, *prometheus.Registry, time.Time) {
	t.Helper()
	start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := clocktesting.NewFakeClock(start)
	cloud := inmemory.New(clk)
	it, _ := inmemory.LookupInstanceType("r5.xlarge")
	for _, g := range []struct {
		id, prio string
	}{{"ng-low", "10"}, {"ng-high", "20"}} {
		err := cloud.AddGroup(inmemory.GroupConfig{ID: g.id, MaxSize: 5, Capacity: inmemory.Unlimited, BootTime: time.Minute,
			Template: cloudprovider.Template{InstanceTypes: []cloudprovider.InstanceType{it},
				Tags: map[string]string{cloudprovider.TagLabelPrefix + "zalando.org/scaling-priority": g.prio}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	o := options.Default()
	o.Expanders = []string{options.ExpanderHighestPriority}
	if mutate != nil {
		mutate(&o)
	}
	cl := &staticCluster{}
	rec := &events{}
	reg := prometheus.NewRegistry()
	a, err := New(Config{Options: o, Provider: cloud, Cluster: cl, Recorder: rec, Clock: clk, Rand: rand.New(rand.NewPCG(1, 1)), Registerer: reg})
	if err != nil {
		t.Fatal(err)
	}
	return a, cloud, cl, rec, reg, start
}

func pendingPod(name string, created time.Time) *corev1.Pod {
	return fixture.Pod(name, fixture.WithRequests("cpu", "1", "memory", "20Gi"), fixture.UnschedulablePod(),
		fixture.WithCreationTime(metav1.NewTime(created)))
}

func TestRunOnceScalesUpTheHighestPriorityGroup(t *testing.T) {
	a, cloud, cl, rec, reg, now := newLoop(t, nil)
	cl.pods = []*corev1.Pod{pendingPod("a", now), pendingPod("b", now)}
	if err := a.RunOnce(t.Context(), now); err != nil {
		t.Fatal(err)
	}
	_, target, _ := cloud.Group("ng-high")
	if target != 2 {
		t.Fatalf("ng-high target %d, want 2 (events %+v)", target, *rec)
	}
	// The requested nodes are upcoming: the next loop adds nothing.
	if err := a.RunOnce(t.Context(), now.Add(10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, target, _ = cloud.Group("ng-high"); target != 2 {
		t.Fatalf("second loop changed target to %d", target)
	}
	if got := testutil.ToFloat64(a.metrics.targetSize.WithLabelValues("ng-high")); got != 2 {
		t.Fatalf("target gauge %v", got)
	}
	if n, err := testutil.GatherAndCount(reg, "cluster_autoscaler_node_group_in_backoff"); err != nil || n != 2 {
		t.Fatalf("backoff series %d, %v", n, err)
	}
}

func TestRunOnceAPIErrorBacksOffAndFailsOver(t *testing.T) {
	a, cloud, cl, rec, _, now := newLoop(t, func(o *options.Options) { o.BackoffNoFullScaleDown = true })
	if err := cloud.SetAPIError("ng-high", errors.New("throttled")); err != nil {
		t.Fatal(err)
	}
	cl.pods = []*corev1.Pod{pendingPod("a", now)}
	if err := a.RunOnce(t.Context(), now); err != nil {
		t.Fatal(err)
	}
	if err := a.RunOnce(t.Context(), now.Add(10*time.Second)); err != nil {
		t.Fatal(err)
	}
	_, low, _ := cloud.Group("ng-low")
	if low != 1 {
		t.Fatalf("ng-low target %d, want 1 after ng-high failed (events %+v)", low, *rec)
	}
	var backedOff bool
	for _, st := range a.State() {
		if st.Group.ID == "ng-high" {
			backedOff = st.Backoff.BackedOff
		}
	}
	if !backedOff {
		t.Fatal("ng-high not backed off")
	}
	if got := testutil.ToFloat64(a.metrics.scaleUps.failures.WithLabelValues("cloudProviderError", "", "", "")); got != 1 {
		t.Fatalf("failed scale-ups %v", got)
	}
}

func TestRunOnceExplainsPodsNoGroupFits(t *testing.T) {
	a, cloud, cl, rec, _, now := newLoop(t, nil)
	cl.pods = []*corev1.Pod{fixture.Pod("huge", fixture.WithRequests("memory", "1Ti"), fixture.UnschedulablePod())}
	if err := a.RunOnce(t.Context(), now); err != nil {
		t.Fatal(err)
	}
	if _, target, _ := cloud.Group("ng-high"); target != 0 {
		t.Fatalf("scaled up for a pod that fits nowhere")
	}
	found := false
	for _, e := range *rec {
		if e.Type == EventNotTriggerScaleUp && e.Pods == 1 {
			found = true
		}
	}
	if !found {
		t.Fatalf("no NotTriggerScaleUp event: %+v", *rec)
	}
}

func TestConfigValidate(t *testing.T) {
	if _, err := New(Config{Options: options.Default()}); err == nil {
		t.Fatal("missing wiring accepted")
	}
}

func TestTemplateModes(t *testing.T) {
	for _, fromProvider := range []bool{true, false} {
		a, cloud, cl, _, _, now := newLoop(t, func(o *options.Options) { o.ScaleUpTemplateFromCloudProvider = fromProvider })
		if err := cloud.AddInstance("ng-high", "i-live", true, 0); err != nil {
			t.Fatal(err)
		}
		live := fixture.Node("i-live", fixture.WithProviderID(inmemory.ProviderID("ng-high", "i-live")),
			fixture.WithCapacity(corev1.ResourceMemory, "64Gi"),
			fixture.WithNodeLabels(map[string]string{"zalando.org/scaling-priority": "20"}))
		cl.nodes = []*corev1.Node{live}
		cl.pods = []*corev1.Pod{
			fixture.Pod("busy", fixture.WithRequests("memory", "60Gi"), fixture.OnNode("i-live")),
			fixture.Pod("big", fixture.WithRequests("memory", "48Gi"), fixture.UnschedulablePod()),
		}
		if err := a.RunOnce(t.Context(), now); err != nil {
			t.Fatal(err)
		}
		_, target, _ := cloud.Group("ng-high")
		// The provider's r5.xlarge has 32Gi: the pod fits only the live 64Gi node's copy.
		want := 1
		if !fromProvider {
			want = 2
		}
		if target != want {
			t.Fatalf("template from provider %v: target %d, want %d", fromProvider, target, want)
		}
	}
}

// unavailableTemplates hides the provider template of one group, as the
// Cluster API provider does for a group without capacity annotations.
type unavailableTemplates struct {
	*inmemory.Cloud
	group string
}

func (u unavailableTemplates) NodeGroups(ctx context.Context) ([]cloudprovider.NodeGroup, error) {
	gs, err := u.Cloud.NodeGroups(ctx)
	for i := range gs {
		if gs[i].ID == u.group {
			gs[i].Template = cloudprovider.Template{UnavailableReason: "no capacity annotations"}
		}
	}
	return gs, err
}

func TestUnavailableProviderTemplateFallsBackToLiveNode(t *testing.T) {
	a, cloud, cl, _, _, now := newLoop(t, nil) // --scale-up-cloud-provider-template (the default)
	a.cfg.Provider = unavailableTemplates{Cloud: cloud, group: "ng-high"}
	if err := cloud.AddInstance("ng-high", "i-live", true, 0); err != nil {
		t.Fatal(err)
	}
	live := fixture.Node("i-live", fixture.WithProviderID(inmemory.ProviderID("ng-high", "i-live")),
		fixture.WithCapacity(corev1.ResourceMemory, "64Gi"),
		fixture.WithNodeLabels(map[string]string{"zalando.org/scaling-priority": "20"}))
	cl.nodes = []*corev1.Node{live}
	cl.pods = []*corev1.Pod{
		fixture.Pod("busy", fixture.WithRequests("memory", "60Gi"), fixture.OnNode("i-live")),
		fixture.Pod("big", fixture.WithRequests("memory", "48Gi"), fixture.UnschedulablePod()),
	}
	if err := a.RunOnce(t.Context(), now); err != nil {
		t.Fatal(err)
	}
	// Only the live 64Gi node's copy fits the pod; without it ng-high has no template.
	if _, target, _ := cloud.Group("ng-high"); target != 2 {
		t.Fatalf("ng-high target %d, want 2 from its live node's template", target)
	}
}

func TestMetricsForgetRemovedGroups(t *testing.T) {
	a, cloud, _, _, reg, now := newLoop(t, func(o *options.Options) { o.EmitPerNodeGroupMetrics = true })
	if err := a.RunOnce(t.Context(), now); err != nil {
		t.Fatal(err)
	}
	if n, _ := testutil.GatherAndCount(reg, "cluster_autoscaler_node_group_in_backoff"); n != 2 {
		t.Fatalf("series before removal: %d", n)
	}
	if err := cloud.RemoveGroup("ng-low"); err != nil {
		t.Fatal(err)
	}
	if err := a.RunOnce(t.Context(), now.Add(10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if n, _ := testutil.GatherAndCount(reg, "cluster_autoscaler_node_group_in_backoff", "cluster_autoscaler_node_group_target_count"); n != 2 {
		t.Fatalf("series after removal: %d, want one of each for ng-high", n)
	}
}

// TestPerNodeGroupMetricsNeedTheFlag checks that node_group_target_count is
// exported only with --emit-per-nodegroup-metrics, as upstream.
func TestPerNodeGroupMetricsNeedTheFlag(t *testing.T) {
	for _, emit := range []bool{false, true} {
		a, _, _, _, reg, now := newLoop(t, func(o *options.Options) { o.EmitPerNodeGroupMetrics = emit })
		if err := a.RunOnce(t.Context(), now); err != nil {
			t.Fatal(err)
		}
		want := 0
		if emit {
			want = 2
		}
		if n, _ := testutil.GatherAndCount(reg, "cluster_autoscaler_node_group_target_count"); n != want {
			t.Errorf("emit %v: %d target count series, want %d", emit, n, want)
		}
	}
}
