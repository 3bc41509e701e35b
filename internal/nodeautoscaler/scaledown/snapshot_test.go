package scaledown

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/simulator"
)

// loopSnapshot builds a snapshot as the loop caches it: the ready nodes
// and their pods, in input order (as the loop's cache adds new pods) or
// reversed (a node's pods in another order than the input's).
func loopSnapshot(t testing.TB, in *Input, reversed bool) *simulator.Snapshot {
	t.Helper()
	snap := simulator.NewSnapshot()
	ready := map[string]bool{}
	for _, n := range in.Nodes {
		if n.Ready {
			ready[n.Node.Name] = true
			if err := snap.AddNode(n.Node); err != nil {
				t.Fatal(err)
			}
		}
	}
	pods := in.Pods
	if reversed {
		pods = slices.Clone(pods)
		slices.Reverse(pods)
	}
	for _, p := range pods {
		if ready[p.Spec.NodeName] {
			if err := snap.AddPod(p); err != nil {
				t.Fatal(err)
			}
		}
	}
	return snap
}

// snapshotState is every node in order with its pods, to check that a
// borrowed snapshot comes back unchanged.
func snapshotState(snap *simulator.Snapshot) string {
	out := fmt.Sprintf("forks %d;", snap.Forked())
	for _, n := range snap.Nodes() {
		out += fmt.Sprintf(" %s %p %v %+v;", n.Node().Name, n.Node(), n.Pods(), n.Requested())
	}
	return out
}

// samePlanOnLoopSnapshot plans in on a loop-style snapshot and checks the
// plan equals want and the snapshot is left as it was.
func samePlanOnLoopSnapshot(t *testing.T, cfg Config, in Input, want Plan) {
	t.Helper()
	for _, reversed := range []bool{false, true} {
		in.Snapshot = loopSnapshot(t, &in, reversed)
		samePlanOn(t, cfg, in, want)
	}
}

func samePlanOn(t *testing.T, cfg Config, in Input, want Plan) {
	t.Helper()
	before := snapshotState(in.Snapshot)
	got, err := mustPlanner(t, cfg).Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	if after := snapshotState(in.Snapshot); after != before {
		t.Errorf("snapshot changed by planning:\n before %s\n after  %s", before, after)
	}
	if !slices.Equal(names(got.Unneeded), names(want.Unneeded)) || !slices.Equal(names(got.Empty), names(want.Empty)) ||
		!slices.Equal(names(got.Drain), names(want.Drain)) || !slices.Equal(got.Blocked, want.Blocked) {
		t.Errorf("plan on the loop's snapshot differs:\n got  unneeded %v empty %v drain %v blocked %v\n want unneeded %v empty %v drain %v blocked %v",
			names(got.Unneeded), names(got.Empty), names(got.Drain), got.Blocked,
			names(want.Unneeded), names(want.Empty), names(want.Drain), want.Blocked)
	}
	for i := range min(len(got.Unneeded), len(want.Unneeded)) {
		if !slices.Equal(got.Unneeded[i].Pods, want.Unneeded[i].Pods) {
			t.Errorf("%s evicts %v, want %v", got.Unneeded[i].Node.Name, got.Unneeded[i].Pods, want.Unneeded[i].Pods)
		}
	}
}

// A snapshot that differs from the input (a node replaced by a new
// object, a node and a pod the input lacks, a pod the snapshot lacks, an
// unready node it leaves out, pending pods the loop placed) still gives
// the plan of a fresh snapshot, and comes back unchanged.
func TestPlanOnStaleLoopSnapshot(t *testing.T) {
	w := new(world).
		node("full", "g", fixture.WithCapacity("cpu", "4")).pod("f1", "full", "3").
		node("a", "g").pod("a1", "a", "300m").pod("a2", "a", "200m").
		node("b", "g").pod("b1", "b", "400m").
		node("c", "g", fixture.WithNodeLabels(map[string]string{"pool": "c"})).barePod("c1", "c", "100m").
		node("d", "g").pod("d1", "d", "100m", fixture.WithNodeSelector(map[string]string{"pool": "c"})).
		node("u", "g").pod("u1", "u", "100m")
	w.nodes[len(w.nodes)-1].Ready = false
	cfg := testConfig()
	cfg.UnneededTime = 0
	in := w.input(t0)
	in.Placed = []simulator.Placement{{Pod: fixture.Pod("pending", fixture.WithRequests("cpu", "200m")), NodeName: "b"}}
	want, err := mustPlanner(t, cfg).Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(names(want.Unneeded), "d") {
		t.Fatalf("d is not unneeded (%v); the test would prove nothing", want.Blocked)
	}

	snap := loopSnapshot(t, &in, true)
	// "c" is cached as an older object without its label: the planner must
	// use the input's node, or d1 (needing pool=c) would find no place.
	if err := snap.RemoveNode("c"); err != nil {
		t.Fatal(err)
	}
	if err := snap.AddNode(fixture.Node("c")); err != nil {
		t.Fatal(err)
	}
	for _, p := range in.Pods {
		if p.Spec.NodeName == "c" {
			if err := snap.AddPod(p); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A node and a pod the cluster no longer has, and a pod not cached yet.
	if err := snap.AddNode(fixture.Node("gone", fixture.WithCapacity(corev1.ResourceCPU, "64"))); err != nil {
		t.Fatal(err)
	}
	if err := snap.AddPod(fixture.Pod("ghost", fixture.OnNode("full"), fixture.WithRequests("cpu", "900m"))); err != nil {
		t.Fatal(err)
	}
	if err := snap.RemovePod("default", "a2"); err != nil {
		t.Fatal(err)
	}
	in.Snapshot = snap
	sameSimulationSnapshot(t, cfg, in)
	samePlanOn(t, cfg, in, want)

	// A snapshot the caller has forked itself stays forked and unchanged.
	snap.Fork()
	samePlanOn(t, cfg, in, want)
	if snap.Forked() != 1 {
		t.Fatalf("forks = %d, want the caller's one", snap.Forked())
	}
}

// The planner's simulation (removing nodes, moving pods) on the loop's
// snapshot places moved pods like a fresh snapshot does, over many
// candidates and batches.
func TestPlanOnLoopSnapshotManyNodes(t *testing.T) {
	w := new(world)
	for i := range 40 {
		n := fmt.Sprintf("n%02d", i)
		w.node(n, "g")
		for j := range i % 5 {
			w.pod(fmt.Sprintf("p%02d-%d", i, j), n, fmt.Sprintf("%dm", 100+37*((i+j)%7)))
		}
	}
	plan := runPlan(t, w, testConfig())
	if len(plan.Unneeded) == 0 || len(plan.Blocked) == 0 {
		t.Fatalf("want both unneeded and blocked nodes; unneeded %v blocked %v", names(plan.Unneeded), plan.Blocked)
	}
}

// sameSimulationSnapshot checks that the snapshot the removal simulates on
// holds the same nodes in the same order, with the same Node objects and
// pods, whether built fresh or adapted from in.Snapshot.
func sameSimulationSnapshot(t *testing.T, cfg Config, in Input) {
	t.Helper()
	open := func(in Input) ([]string, *removal) {
		states := gatherNodes(&in, cfg)
		groups := map[string]Group{}
		for _, g := range in.Groups {
			groups[g.ID] = g
		}
		cfg.classifyNodes(states, groups, newPDBIndex(in.PDBs), nil, in.Now, nil)
		_, snapOrder := splitCandidates(states)
		r, err := newRemoval(&cfg, &in, snapOrder)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, n := range r.snap.Nodes() {
			pods := n.Pods()
			slices.SortFunc(pods, func(a, b *corev1.Pod) int { return strings.Compare(a.Name, b.Name) })
			out = append(out, fmt.Sprintf("%s %p %v", n.Node().Name, n.Node(), pods))
		}
		return out, r
	}
	borrowed := in.Snapshot
	in.Snapshot = nil
	want, _ := open(in)
	in.Snapshot = borrowed
	got, r := open(in)
	r.close()
	if !slices.Equal(got, want) {
		t.Errorf("simulation snapshot from the loop's:\n%s\nwant (fresh):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
