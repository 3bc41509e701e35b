package live_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kscale/kscale/internal/cloudprovider/inmemory"
	"github.com/kscale/kscale/internal/nodeautoscaler"
	"github.com/kscale/kscale/internal/nodeautoscaler/actuation"
	"github.com/kscale/kscale/internal/nodeautoscaler/live"
	"github.com/kscale/kscale/internal/nodeautoscaler/options"
)

// startInformers fills the informer caches of a started and synced factory
// with the world's objects, and delivers the pods' events to the Cluster,
// as a watch would. The caller cancels ctx and then shuts the factory down.
func startInformers(b *testing.B, ctx context.Context, objects []any) (*live.Cluster, *fake.Clientset, informers.SharedInformerFactory) {
	client := fake.NewClientset()
	factory := live.NewFactory(client)
	cluster := newCluster(b, factory)
	factory.Start(ctx.Done())
	if err := cluster.WaitForSync(ctx); err != nil {
		b.Fatal(err)
	}
	events := cluster.PodEventHandler()
	for _, o := range objects {
		if err := storeOf(factory, o).Add(o); err != nil {
			b.Fatal(err)
		}
		if p, ok := o.(*corev1.Pod); ok {
			events.OnAdd(p, false)
		}
	}
	return cluster, client, factory
}

func storeOf(f informers.SharedInformerFactory, o any) cache.Store {
	core, apps := f.Core().V1(), f.Apps().V1()
	switch o.(type) {
	case *corev1.Node:
		return core.Nodes().Informer().GetStore()
	case *corev1.Pod:
		return core.Pods().Informer().GetStore()
	case *corev1.Namespace:
		return core.Namespaces().Informer().GetStore()
	case *corev1.PersistentVolume:
		return core.PersistentVolumes().Informer().GetStore()
	case *corev1.PersistentVolumeClaim:
		return core.PersistentVolumeClaims().Informer().GetStore()
	case *appsv1.DaemonSet:
		return apps.DaemonSets().Informer().GetStore()
	case *appsv1.ReplicaSet:
		return apps.ReplicaSets().Informer().GetStore()
	case *appsv1.StatefulSet:
		return apps.StatefulSets().Informer().GetStore()
	case *batchv1.Job:
		return f.Batch().V1().Jobs().Informer().GetStore()
	case *policyv1.PodDisruptionBudget:
		return f.Policy().V1().PodDisruptionBudgets().Informer().GetStore()
	}
	panic(fmt.Sprintf("no informer for %T", o))
}

// BenchmarkLiveLoop runs the live loop (Runner.Once: take the view,
// observe, scale up, plan scale-down, metrics) over informer caches of
// 1,000 nodes in five groups and 30,000 pods, 1,000 of them pending. The
// first loops scale up; the timed loops are the steady state that follows,
// with the scale-ups in flight and the pending pods waiting for them:
// "steady" with no change between loops, "churn" with 30 node objects and
// 300 bound pod objects replaced before each loop (status updates, as the
// informers deliver them). Targets: under 100 ms per loop, process memory
// under 500 MB.
func BenchmarkLiveLoop(b *testing.B) {
	b.Run("steady", func(b *testing.B) { benchLiveLoop(b, 0, 0) })
	b.Run("churn", func(b *testing.B) { benchLiveLoop(b, 30, 300) })
}

func benchLiveLoop(b *testing.B, nodesPerLoop, podsPerLoop int) {
	// Measure this run's memory only: free what earlier runs left and
	// reset the peak RSS (VmHWM) of the process.
	debug.FreeOSMemory()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		b.Fatalf("resetting the peak RSS: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := clocktesting.NewFakeClock(now)
	w := newBenchWorld(b, now)
	if w.pods != 30000 {
		b.Fatalf("the world has %d pods, want 30,000", w.pods)
	}
	cluster, client, factory := startInformers(b, ctx, w.objects)
	defer func() { cancel(); factory.Shutdown() }()
	churn := newChurn(factory, cluster, w.objects, nodesPerLoop, podsPerLoop)
	w.objects = nil
	health := live.NewHealth(clk, live.HealthTimers{MaxInactivity: 15 * time.Minute, MaxFailing: 15 * time.Minute})
	runner := newBenchRunner(b, w.cloud, cluster, client, clk, health)
	// once runs one loop a millisecond after the last and fails the
	// benchmark unless it succeeded.
	once := func() {
		clk.Step(time.Millisecond)
		runner.Once(ctx)
		if !health.LastSuccess().Equal(clk.Now()) {
			b.Fatal("the loop failed (see the log)")
		}
	}
	targets := func() int {
		groups, err := w.cloud.NodeGroups(ctx)
		if err != nil {
			b.Fatal(err)
		}
		total := 0
		for _, g := range groups {
			total += g.TargetSize
		}
		return total
	}
	start := time.Now()
	once()
	firstLoop := time.Since(start)
	// Each loop scales up one group (balancing similar ones); the steady
	// state starts once every group's scale-up is in flight.
	scaledUp, warmUp := targets(), 1
	for ; warmUp < 20; warmUp++ {
		once()
		if t := targets(); t != scaledUp {
			scaledUp = t
			continue
		}
		break
	}
	if scaledUp <= 1000 || warmUp == 20 {
		b.Fatalf("no steady state: %d target nodes after %d loops", scaledUp, warmUp)
	}
	runtime.GC()
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU(b)
	for b.Loop() {
		b.StopTimer()
		churn.step(b)
		b.StartTimer()
		once()
	}
	b.StopTimer()
	// CPU of the process per loop (garbage collector included): wall time
	// on a shared machine also counts the waits for a core.
	b.ReportMetric(float64(processCPU(b)-cpu0)/float64(b.N), "cpu-ns/op")
	if got := targets(); got != scaledUp {
		b.Fatalf("steady-state loops changed the targets from %d to %d", scaledUp, got)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-inuse-MB")
	b.ReportMetric(procStatusMB(b, "VmHWM"), "max-rss-MB")
	// What stays: informer caches, the loop's snapshot and state.
	runtime.GC()
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "live-heap-MB")
	b.ReportMetric(float64(scaledUp-1000), "nodes-added")
	// Reported after the timed loops: ResetTimer drops earlier metrics.
	b.ReportMetric(float64(firstLoop.Milliseconds()), "first-loop-ms")
	b.ReportMetric(float64(warmUp), "warm-up-loops")
}

// churn replaces cached nodes and bound pods with updated copies, round
// robin, as a watch delivering status updates does.
type churn struct {
	nodes                     []*corev1.Node
	pods                      []*corev1.Pod
	nodeStore, podStore       cache.Store
	podEvents                 cache.ResourceEventHandler
	nodesPerLoop, podsPerLoop int
	nextNode, nextPod, rv     int
}

func newChurn(f informers.SharedInformerFactory, cluster *live.Cluster, objects []any, nodesPerLoop, podsPerLoop int) *churn {
	c := &churn{nodeStore: f.Core().V1().Nodes().Informer().GetStore(), podStore: f.Core().V1().Pods().Informer().GetStore(),
		podEvents:    cluster.PodEventHandler(),
		nodesPerLoop: nodesPerLoop, podsPerLoop: podsPerLoop}
	for _, o := range objects {
		switch o := o.(type) {
		case *corev1.Node:
			c.nodes = append(c.nodes, o)
		case *corev1.Pod:
			if o.Spec.NodeName != "" {
				c.pods = append(c.pods, o)
			}
		}
	}
	return c
}

func (c *churn) step(b *testing.B) {
	for range c.nodesPerLoop {
		i := c.nextNode % len(c.nodes)
		n := *c.nodes[i]
		c.rv++
		n.ResourceVersion = strconv.Itoa(c.rv)
		if err := c.nodeStore.Update(&n); err != nil {
			b.Fatal(err)
		}
		c.nodes[i] = &n
		c.nextNode++
	}
	for range c.podsPerLoop {
		i := c.nextPod % len(c.pods)
		p := *c.pods[i]
		c.rv++
		p.ResourceVersion = strconv.Itoa(c.rv)
		if err := c.podStore.Update(&p); err != nil {
			b.Fatal(err)
		}
		c.podEvents.OnUpdate(c.pods[i], &p)
		c.pods[i] = &p
		c.nextPod++
	}
}

func newBenchRunner(b *testing.B, cloud *inmemory.Cloud, cluster *live.Cluster, client *fake.Clientset, clk *clocktesting.FakeClock, health *live.Health) *live.Runner {
	o := options.Default()
	o.Expanders = []string{options.ExpanderLeastWaste}
	o.BalanceSimilarNodeGroups = true
	rec, err := live.NewRecorder(live.RecorderConfig{Events: &record.FakeRecorder{}, Cluster: cluster, Namespace: "kube-system", Clock: clk})
	if err != nil {
		b.Fatal(err)
	}
	loop, err := nodeautoscaler.New(nodeautoscaler.Config{Options: o, Provider: cloud, Cluster: cluster, Recorder: rec, Clock: clk,
		Rand: rand.New(rand.NewPCG(1, 1)), Registerer: prometheus.NewRegistry(), ScaleDown: actuation.NewKube(client)})
	if err != nil {
		b.Fatal(err)
	}
	runner, err := live.NewRunner(live.RunnerConfig{Loop: loop, Cluster: cluster, Clock: clk, ScanInterval: 10 * time.Second,
		Health: health, Registerer: prometheus.NewRegistry()})
	if err != nil {
		b.Fatal(err)
	}
	return runner
}

// procStatusMB reads a memory line (in kB) of /proc/self/status, in MB.
func procStatusMB(b *testing.B, field string) float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb / 1024
		}
	}
	b.Fatalf("no %s in /proc/self/status", field)
	return 0
}

// processCPU returns the user and system CPU time of the process.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
