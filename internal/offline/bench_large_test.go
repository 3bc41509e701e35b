package offline

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kscale/kscale/internal/scenario"
)

// largeDayScenario is a cluster that grows to about 3,000 nodes and
// 100,000 pods over the day: 100 services of 750 pods each start running
// on 2,460 nodes of three zones, a DaemonSet runs on every node, and 10 of
// the services follow a daily load curve (scaled every 15 minutes between
// 750 and 3,250 pods), so the cluster grows to about 100,000 pods and
// 3,200 nodes at noon and shrinks again.
func largeDayScenario(duration time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, `apiVersion: kscale.dev/v1alpha1
kind: Scenario
name: a day of a 3000-node cluster with 100000 pods
duration: %v
autoscaler:
  expander: [least-waste]
  balance-similar-node-groups: true
  max-node-provision-time: 7m
  scale-down-unneeded-time: 20m
nodeGroups:
`, duration)
	for _, z := range []string{"a", "b", "c"} {
		fmt.Fprintf(&b, "  - {name: main-%s, max: 1300, instanceTypes: [m5.2xlarge], zone: eu-central-1%s, bootTime: 2m, reserved: {cpu: 200m, memory: 1Gi}}\n", z, z)
	}
	b.WriteString("nodes:\n")
	for _, z := range []string{"a", "b", "c"} {
		fmt.Fprintf(&b, "  - {group: main-%s, count: 820}\n", z)
	}
	b.WriteString("workloads:\n  - {name: agent, kind: DaemonSet, pod: {requests: {cpu: 50m, memory: 64Mi}}}\n")
	for i := range 100 {
		fmt.Fprintf(&b, "  - {name: svc-%d, kind: ReplicaSet, replicas: 750, scheduled: 750, pod: {requests: {cpu: 250m, memory: 768Mi}}}\n", i)
	}
	b.WriteString("events:\n")
	for m := 15; m < int(duration.Minutes()); m += 15 {
		load := 750 + int(2500*math.Max(0, math.Sin(math.Pi*float64(m)/(12*60))))
		for i := range 10 {
			fmt.Fprintf(&b, "  - {at: %dm, scaleWorkload: {workload: svc-%d, count: %d}}\n", m, i, load)
		}
	}
	return b.String()
}

// BenchmarkSimulateDay24h3000 simulates 24 hours of about 3,000 nodes and
// 100,000 pods (largeDayScenario) at the default 10s scan interval.
// Target (issue 19): under 60 s and 2 GB per op; reported as wall
// ns/op, cpu-ns/op, peak-rss-MB (the process's peak resident set, which
// includes the parse and the benchmark harness) and the peak nodes and
// pods.
func BenchmarkSimulateDay24h3000(b *testing.B) {
	benchmarkLarge(b, 24*time.Hour)
}

func benchmarkLarge(b *testing.B, duration time.Duration) {
	scn, err := scenario.Parse([]byte(largeDayScenario(duration)))
	if err != nil {
		b.Fatal(err)
	}
	cpu0 := processCPU()
	for b.Loop() {
		w, err := New(scn)
		if err != nil {
			b.Fatal(err)
		}
		res, err := w.Run(b.Context())
		if err != nil {
			b.Fatal(err)
		}
		if res.Final.LoopErrors > 0 {
			b.Fatalf("%d loop errors", res.Final.LoopErrors)
		}
		peakNodes, peakPods := 0, 0
		for _, s := range res.Samples {
			n := 0
			for _, g := range s.Groups {
				n += g.Nodes
			}
			peakNodes, peakPods = max(peakNodes, n), max(peakPods, s.Pods)
		}
		b.ReportMetric(float64(peakNodes), "peak-nodes")
		b.ReportMetric(float64(peakPods), "peak-pods")
		b.ReportMetric(float64(res.Final.Loops), "loops")
	}
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(peakRSS())/(1<<20), "peak-rss-MB")
}

// peakRSS is the process's peak resident set size (VmHWM), 0 where
// /proc/self/status does not exist.
func peakRSS() uint64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// BenchmarkSimulateHour3000 is the first hour of the same cluster, to
// profile quickly.
func BenchmarkSimulateHour3000(b *testing.B) {
	benchmarkLarge(b, time.Hour)
}
