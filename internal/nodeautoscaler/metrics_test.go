package nodeautoscaler

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/inmemory"
	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/nodeautoscaler/clusterstate"
	"github.com/kscale/kscale/internal/nodeautoscaler/options"
)

// metricsGroup is one node group of a metrics test loop.
type metricsGroup struct {
	id, instanceType string
	labels           map[string]string
}

// newMetricsLoop is a loop over the given groups with a fresh registry.
func newMetricsLoop(t *testing.T, groups []metricsGroup, mutate func(*options.Options)) (*Autoscaler, *inmemory.Cloud, *staticCluster, *prometheus.Registry, *clocktesting.FakeClock) {
	t.Helper()
	clk := clocktesting.NewFakeClock(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC))
	cloud := inmemory.New(clk)
	for _, g := range groups {
		it, err := inmemory.LookupInstanceType(g.instanceType)
		if err != nil {
			t.Fatal(err)
		}
		tags := map[string]string{}
		for k, v := range g.labels {
			tags[cloudprovider.TagLabelPrefix+k] = v
		}
		err = cloud.AddGroup(inmemory.GroupConfig{ID: g.id, MaxSize: 10, Capacity: inmemory.Unlimited, BootTime: time.Minute,
			Template: cloudprovider.Template{InstanceTypes: []cloudprovider.InstanceType{it}, Tags: tags}})
		if err != nil {
			t.Fatal(err)
		}
	}
	o := options.Default()
	if mutate != nil {
		mutate(&o)
	}
	cl := &staticCluster{}
	reg := prometheus.NewRegistry()
	a, err := New(Config{Options: o, Provider: cloud, Cluster: cl, Clock: clk, Rand: rand.New(rand.NewPCG(1, 1)), Registerer: reg})
	if err != nil {
		t.Fatal(err)
	}
	return a, cloud, cl, reg, clk
}

func gpuPod(name string, created time.Time) *corev1.Pod {
	return fixture.Pod(name, fixture.WithRequests("cpu", "1", "memory", "1Gi", "nvidia.com/gpu", "1"), fixture.UnschedulablePod(),
		fixture.WithCreationTime(metav1.NewTime(created)))
}

func TestMetricsScaleUpOfAGPUGroup(t *testing.T) {
	a, _, cl, _, clk := newMetricsLoop(t, []metricsGroup{
		{id: "gpu", instanceType: "p2.xlarge", labels: map[string]string{"k8s.amazonaws.com/accelerator": "nvidia-tesla-k80"}},
	}, nil)
	now := clk.Now()
	cl.pods = []*corev1.Pod{gpuPod("a", now), gpuPod("b", now)}
	if err := a.RunOnce(t.Context(), now); err != nil {
		t.Fatal(err)
	}
	m := a.metrics.scaleUps
	if got := testutil.ToFloat64(m.nodes.WithLabelValues("nvidia.com/gpu", "nvidia-tesla-k80", "")); got != 2 {
		t.Errorf("scaled_up_nodes_total for the GPU = %v, want 2", got)
	}
	if got := testutil.ToFloat64(m.gpuNodes.WithLabelValues("nvidia.com/gpu", "nvidia-tesla-k80")); got != 2 {
		t.Errorf("scaled_up_gpu_nodes_total = %v, want 2", got)
	}
	if got := testutil.ToFloat64(m.nodes.WithLabelValues("", "", "")); got != 0 {
		t.Errorf("scaled_up_nodes_total without GPU = %v, want 0", got)
	}
	// One estimate of two pods from one namespace: without a controller
	// they are two groups, as in upstream's equivalence groups.
	if got := testutil.CollectAndCount(m.binpacking); got != 1 {
		t.Fatalf("binpacking_heterogeneity series %d, want 1", got)
	}
	h := histogramOf(t, m.binpacking, "p2.xlarge", "4", "1")
	if h.GetSampleCount() != 1 || h.GetSampleSum() != 2 {
		t.Errorf("binpacking_heterogeneity count %d sum %v, want 1 and 2", h.GetSampleCount(), h.GetSampleSum())
	}
}

func TestMetricsFailedScaleUpsCountNodes(t *testing.T) {
	a, cloud, cl, _, clk := newMetricsLoop(t, []metricsGroup{{id: "ng", instanceType: "m5.large"}}, nil)
	if err := cloud.SetAPIError("ng", errors.New("throttled")); err != nil {
		t.Fatal(err)
	}
	now := clk.Now()
	cl.pods = []*corev1.Pod{pendingPod("a", now), pendingPod("b", now), pendingPod("c", now)}
	for _, p := range cl.pods {
		p.Spec.Containers[0].Resources.Requests[corev1.ResourceMemory] = resource.MustParse("6Gi")
	}
	if err := a.RunOnce(t.Context(), now); err != nil {
		t.Fatal(err)
	}
	m := a.metrics.scaleUps
	if got := testutil.ToFloat64(m.failures.WithLabelValues(reasonCloudProviderError, "", "", "")); got != 1 {
		t.Errorf("failed_scale_ups_total{cloudProviderError} = %v, want 1", got)
	}
	if got := testutil.ToFloat64(m.nodeCreations.WithLabelValues(reasonCloudProviderError)); got != 3 {
		t.Errorf("failed_node_creations_total{cloudProviderError} = %v, want 3 (one per requested node)", got)
	}
	if got := testutil.ToFloat64(m.nodeCreations.WithLabelValues(reasonTimeout)); got != 0 {
		t.Errorf("failed_node_creations_total{timeout} = %v, want 0", got)
	}
}

func TestMetricsTimedOutScaleUpCountsItsNodes(t *testing.T) {
	a, cloud, cl, _, clk := newMetricsLoop(t, []metricsGroup{{id: "ng", instanceType: "m5.large"}}, nil)
	if err := cloud.SetCreationError("ng", cloudprovider.ErrorInfo{Class: cloudprovider.ErrorOther, Code: "ignored", Message: "x"}); err != nil {
		t.Fatal(err)
	}
	now := clk.Now()
	cl.pods = []*corev1.Pod{pendingPod("a", now), pendingPod("b", now)}
	for _, p := range cl.pods {
		p.Spec.Containers[0].Resources.Requests[corev1.ResourceMemory] = resource.MustParse("6Gi")
	}
	if err := a.RunOnce(t.Context(), now); err != nil {
		t.Fatal(err)
	}
	clk.Step(time.Minute)
	if err := a.RunOnce(t.Context(), clk.Now()); err != nil {
		t.Fatal(err)
	}
	m := a.metrics.scaleUps
	if got := testutil.ToFloat64(m.failures.WithLabelValues("ignored", "", "", "")); got != 1 {
		t.Errorf("failed_scale_ups_total{ignored} = %v, want 1", got)
	}
	if got := testutil.ToFloat64(m.nodeCreations.WithLabelValues("ignored")); got != 2 {
		t.Errorf("failed_node_creations_total{ignored} = %v, want 2", got)
	}
}

func TestMetricsSkippedScaleEventsAtTheCoreLimit(t *testing.T) {
	a, cloud, cl, _, clk := newMetricsLoop(t, []metricsGroup{{id: "big", instanceType: "m5.8xlarge"}, {id: "small", instanceType: "m5.large"}},
		func(o *options.Options) { o.CoresTotal.Max = 4 })
	now := clk.Now()
	cl.pods = []*corev1.Pod{fixture.Pod("a", fixture.WithRequests("cpu", "1", "memory", "1Gi"), fixture.UnschedulablePod(),
		fixture.WithCreationTime(metav1.NewTime(now)))}
	if err := a.RunOnce(t.Context(), now); err != nil {
		t.Fatal(err)
	}
	m := a.metrics.scaleUps
	if got := testutil.ToFloat64(m.skipped.WithLabelValues(directionUp, cpuResourceLimit)); got != 1 {
		t.Errorf("skipped_scale_events_count{up,CpuResourceLimit} = %v, want 1 (the 32-core group)", got)
	}
	if got := testutil.ToFloat64(m.skipped.WithLabelValues(directionUp, memoryResourceLimit)); got != 0 {
		t.Errorf("skipped_scale_events_count{up,MemoryResourceLimit} = %v, want 0", got)
	}
	if _, target, _ := cloud.Group("small"); target != 1 {
		t.Errorf("small target %d, want 1: the group within the limit takes the pod", target)
	}
}

func TestMetricsSkippedPodsAndTaints(t *testing.T) {
	a, _, cl, _, clk := newMetricsLoop(t, []metricsGroup{{id: "ng", instanceType: "m5.large"}},
		func(o *options.Options) {
			o.MaxUnschedulablePodsConsidered = 1
			o.StatusTaints = []string{"example.com/status"}
		})
	now := clk.Now()
	cl.pods = []*corev1.Pod{pendingPod("a", now), pendingPod("b", now), pendingPod("c", now)}
	taints := [][]corev1.Taint{
		{{Key: clusterstate.ToBeDeletedTaint}, {Key: "example.com/status"}},
		{{Key: corev1.TaintNodeNotReady}, {Key: "startup-taint.cluster-autoscaler.kubernetes.io/x"}},
		{{Key: "ignore-taint.cluster-autoscaler.kubernetes.io/y"}, {Key: "dedicated"}, {Key: "status-taint.cluster-autoscaler.kubernetes.io/z"}},
	}
	for i, ts := range taints {
		n := fixture.Node(string(rune('a'+i)), fixture.WithCapacity(corev1.ResourceCPU, "1"))
		n.Spec.Taints = ts
		cl.nodes = append(cl.nodes, n)
	}
	if err := a.RunOnce(t.Context(), now); err != nil {
		t.Fatal(err)
	}
	if got := testutil.ToFloat64(a.metrics.loop.skippedPods.WithLabelValues(skippedPodsRequestor)); got != 2 {
		t.Errorf("skipped_pods_count = %v, want 2 (3 pending, 1 considered)", got)
	}
	want := map[string]float64{clusterstate.ToBeDeletedTaint: 1, corev1.TaintNodeNotReady: 1, taintTypeStatus: 2, taintTypeStartup: 1,
		clusterstate.IgnoreTaintPrefix: 1, taintTypeOther: 1}
	for typ, v := range want {
		if got := testutil.ToFloat64(a.metrics.loop.taints.WithLabelValues(typ)); got != v {
			t.Errorf("node_taints_count{%s} = %v, want %v", typ, got, v)
		}
	}
	// The taints go: their types drop to 0.
	cl.nodes, cl.pods = nil, nil
	if err := a.RunOnce(t.Context(), now.Add(10*time.Second)); err != nil {
		t.Fatal(err)
	}
	for typ := range want {
		if got := testutil.ToFloat64(a.metrics.loop.taints.WithLabelValues(typ)); got != 0 {
			t.Errorf("after the nodes went node_taints_count{%s} = %v, want 0", typ, got)
		}
	}
	if got := testutil.ToFloat64(a.metrics.loop.skippedPods.WithLabelValues(skippedPodsRequestor)); got != 0 {
		t.Errorf("skipped_pods_count without pending pods = %v, want 0", got)
	}
}

func TestNamespaceBucket(t *testing.T) {
	for n, want := range map[int]string{0: "0", 5: "5", 6: "6-10", 10: "6-10", 11: "11+"} {
		if got := namespaceBucket(n); got != want {
			t.Errorf("namespaceBucket(%d) = %q, want %q", n, got, want)
		}
	}
}

// histogramOf returns the histogram of h's series with the label values.
func histogramOf(t *testing.T, h *prometheus.HistogramVec, labels ...string) *dto.Histogram {
	t.Helper()
	obs, err := h.GetMetricWithLabelValues(labels...)
	if err != nil {
		t.Fatal(err)
	}
	var out dto.Metric
	if err := obs.(prometheus.Metric).Write(&out); err != nil {
		t.Fatal(err)
	}
	if out.Histogram == nil {
		t.Fatalf("no histogram for %s", strings.Join(labels, ","))
	}
	return out.Histogram
}

func TestActivityOfALoop(t *testing.T) {
	a, rec, now := sdLoop(t, true)
	if err := a.RunOnce(t.Context(), now); err != nil {
		t.Fatalf("RunOnce: %v (events %+v)", err, *rec)
	}
	act := a.Activity()
	var functions []string
	for _, f := range act.Timings {
		functions = append(functions, f.Function)
	}
	want := []string{FunctionCloudProviderRefresh, FunctionUpdateClusterState, FunctionScaleUp, FunctionScaleDown}
	if !slices.Equal(functions, want) {
		t.Errorf("timed functions %q, want %q", functions, want)
	}
	for _, activity := range []string{ActivityAutoscaling, FunctionScaleUp, FunctionScaleDown} {
		if _, ok := act.Started[activity]; !ok {
			t.Errorf("activity %s not started (started %v)", activity, act.Started)
		}
	}
}
