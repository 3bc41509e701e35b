package scaledown

import (
	"fmt"
	"runtime"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kscale/kscale/internal/fixture"
)

// benchWorld is 2,000 nodes with 40 pods each, every pod using 1% of a node
// (40% utilization), all movable: 1,200 nodes can go.
func benchWorld() Input {
	const nodes, perNode = 2000, 40
	in := Input{Now: t0, Groups: []Group{{ID: "g", TargetSize: nodes}}}
	for i := range nodes {
		name := fmt.Sprintf("node-%04d", i)
		in.Nodes = append(in.Nodes, Node{Node: fixture.Node(name, fixture.WithCapacity(corev1.ResourcePods, "110")),
			Group: "g", Instance: "i-" + name, Ready: true})
		for j := range perNode {
			rs := fmt.Sprintf("rs-%d", (i*perNode+j)%50)
			in.Pods = append(in.Pods, fixture.Pod(fmt.Sprintf("p-%d-%d", i, j), fixture.OnNode(name),
				fixture.WithRequests("cpu", "40m", "memory", "160Mi"),
				fixture.WithLabels(map[string]string{"app": rs}),
				fixture.WithOwner(rsKind, rs, types.UID("uid-"+rs))))
		}
	}
	return in
}

// BenchmarkScaleDownPlan plans on the loop's snapshot, built once before
// the timed loop as a real loop has it cached.
func BenchmarkScaleDownPlan(b *testing.B) {
	in := benchWorld()
	in.Snapshot = loopSnapshot(b, &in, false)
	benchPlan(b, in)
	if in.Snapshot.Forked() != 0 || in.Snapshot.PodCount() != len(in.Pods) || in.Snapshot.NodeCount() != len(in.Nodes) {
		b.Fatalf("the loop's snapshot changed: %s", in.Snapshot)
	}
}

// BenchmarkScaleDownPlanFresh plans without a snapshot: the planner builds
// its own.
func BenchmarkScaleDownPlanFresh(b *testing.B) {
	benchPlan(b, benchWorld())
}

func benchPlan(b *testing.B, in Input) {
	cfg := Default()
	// As upstream's RunOnce scale-down benchmark (see
	// BenchmarkCARunOnceScaleDown): every candidate is simulated.
	cfg.NonEmptyCandidatesCount, cfg.CandidatesPoolRatio = 2000, 1
	b.ReportAllocs()
	runtime.GC() // collect the set-up's garbage before measuring
	cpu0 := processCPU()
	for b.Loop() {
		p := mustPlanner(b, cfg)
		plan, err := p.Plan(in)
		if err != nil {
			b.Fatal(err)
		}
		if len(plan.Unneeded) != 1200 {
			b.Fatalf("unneeded = %d, want 1200", len(plan.Unneeded))
		}
	}
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}
