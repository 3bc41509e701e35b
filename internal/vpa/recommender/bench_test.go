package recommender

import (
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"

	"github.com/kscale/kscale/internal/vpa/estimator"
	"github.com/kscale/kscale/internal/vpa/input"
	"github.com/kscale/kscale/internal/vpa/model"
)

// benchInput is the benchmark's input: 20,000 VPAs over 50,000 containers
// (half the VPAs' pods have three containers, half two) in 2,000
// namespaces, and one usage sample per container at a time.
type benchInput struct {
	vpas  []*vpaEntry
	pods  []input.PodInfo
	usage []input.ContainerUsage
}

// benchState is a kscale recommender model over benchInput with an hour of
// one-minute history per container.
type benchState struct {
	*benchInput
	r       *Recommender
	perAggB float64
}

const (
	benchVPAs       = 20000
	benchContainers = 50000
	benchNamespaces = 2000
	benchHistory    = 60
)

// benchStart returns the time of the first history sample; the benchmark
// loops start an hour later.
func benchStart() time.Time { return time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC) }

func newBenchInput(tb testing.TB) *benchInput {
	tb.Helper()
	in := &benchInput{}
	containers := 0
	for i := range benchVPAs {
		ns, app := fmt.Sprintf("ns-%d", i%benchNamespaces), fmt.Sprintf("app-%d", i)
		names := []string{"app", "proxy"}
		if i < benchContainers-2*benchVPAs {
			names = append(names, "log")
		}
		containers += len(names)
		in.vpas = append(in.vpas, &vpaEntry{
			vpa:      &vpav1.VerticalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: app}},
			id:       model.VPAID{Namespace: ns, Name: app},
			selector: labels.SelectorFromSet(labels.Set{"app": app}),
		})
		in.pods = append(in.pods, input.PodInfo{ID: model.PodID{Namespace: ns, Name: app + "-0"},
			Labels: map[string]string{"app": app, "pod-template-hash": "abc"}, Containers: names})
	}
	if containers != benchContainers {
		tb.Fatalf("built %d containers, want %d", containers, benchContainers)
	}
	in.usage = make([]input.ContainerUsage, 0, benchContainers)
	return in
}

func newBenchState(tb testing.TB) *benchState {
	tb.Helper()
	cfg := DefaultConfig()
	if err := cfg.Validate(); err != nil {
		tb.Fatal(err)
	}
	s := &benchState{benchInput: newBenchInput(tb)}
	// Measure only the model: VPAs, pods, containers and aggregates with history.
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s.r = &Recommender{cfg: cfg, cluster: model.NewCluster(&cfg.Model), est: estimator.New(cfg.Estimator)}
	for _, e := range s.vpas {
		s.r.cluster.SetVPA(e.id, e.selector, true)
	}
	t0 := benchStart()
	for _, p := range s.pods {
		s.r.cluster.SetPod(p.ID, p.Labels, p.Containers, false, t0)
	}
	for m := range benchHistory {
		s.setUsage(t0.Add(time.Duration(m) * time.Minute))
		s.r.feedUsage(s.usage)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	s.perAggB = float64(after.HeapAlloc-before.HeapAlloc) / float64(s.r.cluster.NumAggregates())
	return s
}

// setUsage fills in.usage with one sample per container at t: each
// container has its own level (10m to 2 cores, 20 MB to 2 GB) with a
// deterministic per-minute swing of up to ±30% (CPU) and ±10% (memory).
func (in *benchInput) setUsage(t time.Time) {
	in.usage = in.usage[:0]
	minute := int(t.Unix() / 60)
	for i, p := range in.pods {
		for j, c := range p.Containers {
			k := i*3 + j
			level := float64(k%200+1) / 100 // 0.01 .. 2 cores
			swing := float64((k*31+minute*17)%61-30) / 100
			in.usage = append(in.usage, input.ContainerUsage{Pod: p.ID, Container: c, Time: t,
				CPUCores: level * (1 + swing), MemoryBytes: level * 1e9 * (1 + swing/3)})
		}
	}
}

// loop is the pure part of one recommender loop: pods and samples into the
// model, then every VPA's recommendation and status.
func (s *benchState) loop(now time.Time) int {
	for _, p := range s.pods {
		s.r.cluster.SetPod(p.ID, p.Labels, p.Containers, p.Terminal, now)
	}
	s.r.feedUsage(s.usage)
	withRec := 0
	mt := metav1.NewTime(now)
	for _, e := range s.vpas {
		st := buildStatus(&e.vpa.Status, s.r.recommend(e, nil), mt)
		if st.Recommendation != nil {
			withRec++
		}
	}
	return withRec
}

// BenchmarkRecommenderLoop measures one full aggregation + recommendation
// loop over 20,000 VPAs and 50,000 containers with one new sample each,
// for kscale's model ("kscale") and, on exactly the same input, for the
// upstream v1.7.3 recommender's model and logic ("upstream", see
// bench_upstream_test.go). Target for kscale: under 500 ms per loop and at
// most 1 KB per container aggregate (reported as B/aggregate).
func BenchmarkRecommenderLoop(b *testing.B) {
	b.Run("kscale", func(b *testing.B) {
		s := newBenchState(b)
		runLoopBench(b, s.benchInput, s.loop, s.perAggB)
	})
	b.Run("upstream", func(b *testing.B) {
		u := newUpstreamBench(b, newBenchInput(b))
		runLoopBench(b, u.in, func(t time.Time) int { return u.loop(b, t) }, u.perAggB)
	})
}

// runLoopBench times loop, which must give every VPA a recommendation,
// with a fresh sample per container each iteration, and reports the
// model's bytes per aggregate and the process CPU time per loop.
func runLoopBench(b *testing.B, in *benchInput, loop func(time.Time) int, perAggB float64) {
	t := benchStart().Add(benchHistory * time.Minute)
	var cpu time.Duration
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		t = t.Add(time.Minute)
		in.setUsage(t)
		b.StartTimer()
		before := processCPU()
		if got := loop(t); got != benchVPAs {
			b.Fatalf("%d VPAs got a recommendation, want %d", got, benchVPAs)
		}
		cpu += processCPU() - before
	}
	b.ReportMetric(perAggB, "B/aggregate")
	// CPU time of the whole process (including GC workers) per loop: on a
	// shared machine this is steadier than the wall time in ns/op.
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
}

// TestBenchStateShape keeps the benchmark's input honest without timing it.
func TestBenchStateShape(t *testing.T) {
	s := newBenchState(t)
	if n := s.r.cluster.NumAggregates(); n != benchContainers {
		t.Fatalf("%d aggregates, want %d", n, benchContainers)
	}
	if got := s.loop(time.Date(2026, 3, 1, 2, 0, 0, 0, time.UTC)); got != benchVPAs {
		t.Fatalf("%d VPAs got a recommendation, want %d", got, benchVPAs)
	}
}

// processCPU returns the user+system CPU time the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
