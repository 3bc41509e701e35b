package offline

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/kscale/kscale/internal/scenario"
)

// dayScenario is a 500-node cluster over 24 hours: a web service follows a
// daily load curve (scaled every 15 minutes), a DaemonSet runs everywhere,
// batch Jobs come every two hours.
func dayScenario(scaleDown bool) string {
	var b strings.Builder
	b.WriteString(`apiVersion: kscale.dev/v1alpha1
kind: Scenario
name: a day of a 500-node cluster
duration: 24h
autoscaler:
  expander: [highest-priority, least-waste]
  balance-similar-node-groups: true
  backoff-no-full-scale-down: true
  max-node-provision-time: 7m
  max-unschedulable-pods-considered: 1000
  emulated-topology-spread-constraint-label: tsc-group
`)
	fmt.Fprintf(&b, "  scale-down-enabled: %v\nnodeGroups:\n", scaleDown)
	for _, z := range []string{"a", "b", "c"} {
		fmt.Fprintf(&b, "  - {name: main-%s, max: 400, instanceTypes: [m5.2xlarge], zone: eu-central-1%s, bootTime: 2m, reserved: {cpu: 200m, memory: 1Gi}}\n", z, z)
		fmt.Fprintf(&b, "  - {name: spot-%s, max: 100, instanceTypes: [m5.2xlarge, r5.2xlarge], zone: eu-central-1%s, bootTime: 2m, capacity: 40, labels: {zalando.org/scaling-priority: \"10\"}, stockoutError: {code: InsufficientInstanceCapacity}}\n", z, z)
	}
	b.WriteString("nodes:\n")
	for _, z := range []string{"a", "b", "c"} {
		fmt.Fprintf(&b, "  - {group: main-%s, count: 100}\n", z)
	}
	b.WriteString(`workloads:
  - {name: agent, kind: DaemonSet, pod: {requests: {cpu: 100m, memory: 128Mi}}}
  - name: web
    kind: ReplicaSet
    replicas: 1500
    scheduled: 1500
    pod:
      requests: {cpu: "1", memory: 3Gi}
      labels: {tsc-group: web}
      topologySpreadConstraints:
        - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {tsc-group: web}}}
  - {name: batch, kind: Job, replicas: 0, runTime: 50m, pod: {requests: {cpu: "2", memory: 4Gi}}}
events:
`)
	for m := 15; m < 24*60; m += 15 {
		load := 1500 + int(1800*math.Max(0, math.Sin(math.Pi*float64(m)/(12*60))))
		fmt.Fprintf(&b, "  - {at: %dm, scaleWorkload: {workload: web, count: %d}}\n", m, load)
		if m%120 == 0 {
			fmt.Fprintf(&b, "  - {at: %dm, addPods: {workload: batch, count: 40}}\n", m)
		}
	}
	b.WriteString("expect:\n  - pendingPods: {count: 0}\n")
	return b.String()
}

// BenchmarkSimulateDay runs 24 simulated hours of a 500-node cluster with a
// daily load cycle at a 10s scan interval. Targets: under 30s per op and no
// loop over 50ms (reported as max-loop-ms in wall time and max-loop-cpu-ms
// in CPU time of the loop's thread, which a busy machine does not inflate).
func BenchmarkSimulateDay(b *testing.B) {
	for _, scaleDown := range []bool{true, false} {
		b.Run(fmt.Sprintf("scale-down=%v", scaleDown), func(b *testing.B) { benchmarkDay(b, scaleDown) })
	}
}

func benchmarkDay(b *testing.B, scaleDown bool) {
	scn, err := scenario.Parse([]byte(dayScenario(scaleDown)))
	if err != nil {
		b.Fatal(err)
	}
	var maxLoop, maxCPU time.Duration
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
		if res.Final.LoopErrors > 0 || res.Final.Loops != 8641 {
			b.Fatalf("loops %d, errors %d", res.Final.Loops, res.Final.LoopErrors)
		}
		maxLoop, maxCPU = max(maxLoop, res.MaxLoopWall), max(maxCPU, res.MaxLoopCPU)
		b.ReportMetric(float64(res.Final.Nodes), "nodes")
	}
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(maxLoop.Microseconds())/1000, "max-loop-ms")
	b.ReportMetric(float64(maxCPU.Microseconds())/1000, "max-loop-cpu-ms")
}
