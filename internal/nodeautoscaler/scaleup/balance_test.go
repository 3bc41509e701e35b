package scaleup

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/nodeautoscaler/template"
	"github.com/kscale/kscale/internal/simulator"
)

// zonal is a group of 4-CPU nodes in the zone with target and upcoming nodes.
func zonal(zone string, target, upcoming int) Group {
	n := fixture.Node("template-general-"+zone, fixture.WithZone(zone), fixture.WithNodeLabels(map[string]string{"pool": "general"}))
	return Group{ID: "general-" + zone, Target: target, Max: 100, Upcoming: upcoming, Template: &template.Template{Node: n}}
}

// fullZones is a snapshot with one full node per zone.
func fullZones(t *testing.T, zones ...string) *simulator.Snapshot {
	t.Helper()
	s := simulator.NewSnapshot()
	for _, z := range zones {
		name := "node-" + z
		if err := s.AddNode(fixture.Node(name, fixture.WithZone(z), fixture.WithNodeLabels(map[string]string{"pool": "general"}))); err != nil {
			t.Fatal(err)
		}
		if err := s.AddPod(fixture.Pod("filler-"+z, fixture.WithRequests("cpu", "4"), fixture.OnNode(name))); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// workload returns n pending pods of 2 CPUs labelled app=name, all created
// at the same time, optionally spread over zones (maxSkew 1, DoNotSchedule).
func workload(name string, n int, spread bool) []*corev1.Pod {
	var out []*corev1.Pod
	for i := range n {
		opts := []fixture.PodOption{fixture.WithRequests("cpu", "2"), fixture.WithLabels(map[string]string{"app": name}),
			fixture.WithCreationTime(metav1.NewTime(now.Add(-5 * time.Minute)))}
		if spread {
			opts = append(opts, fixture.WithTopologySpread(corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone,
				WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}}))
		}
		out = append(out, fixture.Pod(fmt.Sprintf("%s-%d", name, i), opts...))
	}
	return out
}

// TestBalancedZoneSpread: with balancing, pods spread over zones get new
// nodes in every zone in one loop, and the next loop, with those nodes
// upcoming, adds none.
func TestBalancedZoneSpread(t *testing.T) {
	tests := []struct {
		name    string
		zones   []string
		targets []int
		pending []*corev1.Pod
		want    string
	}{
		// Each group's estimate alone fits one pod in its zone.
		{"spread over three zones", []string{"a", "b", "c"}, nil, workload("web", 12, true), "general-a+2,general-b+2,general-c+2"},
		// Equal creation times put plain pods first (by name); they must
		// not fill one zone's upcoming nodes before the spread pods.
		{"plain pods created with the spread pods", []string{"a", "b"}, nil,
			append(workload("api", 4, false), workload("web", 8, true)...), "general-a+3,general-b+3"},
		// The smaller group gets the first new nodes; upcoming nodes must
		// come in that order too, not alternately.
		{"groups of different sizes", []string{"a", "b"}, []int{1, 3},
			append(workload("api", 8, false), workload("web", 8, true)...), "general-a+5,general-b+3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var groups []Group
			for i, z := range tt.zones {
				target := 1
				if tt.targets != nil {
					target = tt.targets[i]
				}
				groups = append(groups, zonal(z, target, 0))
			}
			snap := fullZones(t, tt.zones...)
			plan := run(t, Input{Snapshot: snap, Pending: tt.pending, Balance: true, Similarity: DefaultSimilarity(), Groups: groups})
			if got := increases(plan); got != tt.want {
				t.Fatalf("increases %q, want %q (pods without scale-up: %d)", got, tt.want, len(plan.NoScaleUp))
			}
			if len(plan.NoScaleUp) != 0 {
				t.Fatalf("%d pods without scale-up, first %s: %v", len(plan.NoScaleUp), plan.NoScaleUp[0].Pod.Name, plan.NoScaleUp[0].Reasons)
			}
			// The next loop: the nodes are upcoming, the pods still pending.
			for i := range groups {
				for _, inc := range plan.Increases {
					if inc.Group == groups[i].ID {
						groups[i].Target += inc.Delta
						groups[i].Upcoming += inc.Delta
					}
				}
			}
			again := run(t, Input{Snapshot: snap, Pending: tt.pending, Balance: true, Similarity: DefaultSimilarity(), Groups: groups})
			if got := increases(again); got != "" || again.Unschedulable != 0 {
				t.Fatalf("next loop: increases %q, %d pods fit no upcoming node", got, again.Unschedulable)
			}
		})
	}
}

// TestOldestTieBreak: pods created at the same moment are cut by
// namespace and name, whatever order they come in.
func TestOldestTieBreak(t *testing.T) {
	created := fixture.WithCreationTime(metav1.NewTime(now.Add(-time.Minute)))
	a := fixture.Pod("b", fixture.InNamespace("team-a"), created)
	b := fixture.Pod("a", fixture.InNamespace("team-b"), created)
	c := fixture.Pod("b", fixture.InNamespace("team-b"), created)
	older := fixture.Pod("z", fixture.InNamespace("team-z"), fixture.WithCreationTime(metav1.NewTime(now.Add(-time.Hour))))
	for _, in := range [][]*corev1.Pod{{a, b, c, older}, {c, b, a, older}, {older, c, a, b}} {
		got := Oldest(in, 3)
		if len(got) != 3 || got[0] != older || got[1] != a || got[2] != b {
			var names []string
			for _, p := range got {
				names = append(names, p.Namespace+"/"+p.Name)
			}
			t.Fatalf("Oldest kept %v, want team-z/z, team-a/b, team-b/a", names)
		}
	}
}

// randomWorkloads returns pending pods of one to four workloads of random
// size, count, zone spread and creation time (some created together).
func randomWorkloads(rng *rand.Rand) []*corev1.Pod {
	var pending []*corev1.Pod
	for w := range 1 + rng.IntN(4) {
		name := fmt.Sprintf("w%d", w)
		cpu := []string{"500m", "1", "1500m", "2", "3"}[rng.IntN(5)]
		created := now.Add(-time.Minute)
		if rng.IntN(2) == 0 {
			created = now.Add(-time.Duration(w+2) * time.Minute)
		}
		spread := rng.IntN(2) == 0
		for i := range 1 + rng.IntN(12) {
			opts := []fixture.PodOption{fixture.WithRequests("cpu", cpu), fixture.WithLabels(map[string]string{"app": name}),
				fixture.WithCreationTime(metav1.NewTime(created))}
			if spread {
				opts = append(opts, fixture.WithTopologySpread(corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone,
					WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}}))
			}
			pending = append(pending, fixture.Pod(fmt.Sprintf("%s-%d", name, i), opts...))
		}
	}
	return pending
}

// TestBalancedScaleUpSettles runs loops over random mixes of spread and
// plain workloads on two or three zonal groups of random sizes, the
// requested nodes staying upcoming: the second loop may add a node where
// the estimate's largest-first packing and the scheduling order differ,
// but no loop after it may add any (a group growing every loop while the
// pods stay pending is the bug this guards against).
func TestBalancedScaleUpSettles(t *testing.T) {
	for seed := range 200 {
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		zones := []string{"a", "b", "c"}[:2+rng.IntN(2)]
		pending := randomWorkloads(rng)
		var groups []Group
		for _, z := range zones {
			groups = append(groups, zonal(z, 1+rng.IntN(3), 0))
		}
		snap := fullZones(t, zones...)
		for loop := range 4 {
			plan := run(t, Input{Snapshot: snap, Pending: pending, Balance: true, Similarity: DefaultSimilarity(), Groups: groups})
			if loop >= 2 && len(plan.Increases) > 0 {
				t.Fatalf("seed %d: loop %d adds %s again (%d pods fit no upcoming node)", seed, loop, increases(plan), plan.Unschedulable)
			}
			for i := range groups {
				for _, inc := range plan.Increases {
					if inc.Group == groups[i].ID {
						groups[i].Target += inc.Delta
						groups[i].Upcoming += inc.Delta
					}
				}
			}
		}
	}
}

// TestGardenerZonesAreSimilar checks that the templates of one Gardener
// worker pool's MachineDeployments (one per zone) are similar: they
// differ only in the zone labels Gardener's provider extensions set
// (zone, the CSI driver's zone key) and the machine name, and balancing
// must spread over them; a different pool label is not similar.
func TestGardenerZonesAreSimilar(t *testing.T) {
	node := func(zone, csiKey, pool string) *template.Template {
		return tmpl(fixture.Node("template-"+zone, fixture.WithZone(zone), fixture.WithNodeLabels(map[string]string{
			"worker.gardener.cloud/pool": pool, csiKey: zone, "node.gardener.cloud/machine-name": "shoot--p--c-" + pool + "-" + zone + "-abcde",
			"topology.kubernetes.io/region": "eu-1", "node.kubernetes.io/instance-type": "m5.xlarge"})))
	}
	for _, key := range []string{"topology.ebs.csi.aws.com/zone", "topology.gke.io/zone", "topology.disk.csi.azure.com/zone",
		"topology.cinder.csi.openstack.org/zone", "topology.block-storage.csi.stackit.cloud/zone"} {
		if !similar(node("eu-1a", key, "a"), node("eu-1b", key, "a"), DefaultSimilarity()) {
			t.Errorf("one pool's zones with %s differ: not similar", key)
		}
	}
	if similar(node("eu-1a", "topology.gke.io/zone", "a"), node("eu-1b", "topology.gke.io/zone", "b"), DefaultSimilarity()) {
		t.Errorf("two pools are similar")
	}
}

func tmpl(n *corev1.Node, ds ...*corev1.Pod) *template.Template {
	return &template.Template{Node: n, DaemonSetPods: ds}
}

// TestSimilarity checks upstream's comparison and its flags, one
// difference at a time against a 4-CPU, 16Gi template.
func TestSimilarity(t *testing.T) {
	base := func(opts ...fixture.NodeOption) *corev1.Node {
		return fixture.Node("n", append([]fixture.NodeOption{
			fixture.WithNodeLabels(map[string]string{"pool": "a", "team": "x"})}, opts...)...)
	}
	withAlloc := func(cpu, mem string) fixture.NodeOption {
		return func(n *corev1.Node) {
			fixture.WithAllocatable(corev1.ResourceCPU, cpu)(n)
			fixture.WithAllocatable(corev1.ResourceMemory, mem)(n)
		}
	}
	withCapMem := func(mem string) fixture.NodeOption {
		return func(n *corev1.Node) { n.Status.Capacity[corev1.ResourceMemory] = resource.MustParse(mem) }
	}
	ds := func(cpu string) *corev1.Pod { return fixture.Pod("ds", fixture.WithRequests("cpu", cpu)) }
	def := DefaultSimilarity()
	tests := []struct {
		name string
		a, b *template.Template
		s    Similarity
		want bool
	}{
		{"identical", tmpl(base()), tmpl(base()), def, true},
		{"memory capacity 1% apart", tmpl(base()), tmpl(base(withCapMem("16220Mi"))), def, true},
		{"memory capacity 3% apart", tmpl(base()), tmpl(base(withCapMem("16874Mi"))), def, false},
		{"memory capacity 3% apart, ratio raised", tmpl(base()), tmpl(base(withCapMem("16874Mi"))),
			Similarity{MaxAllocatableDifferenceRatio: 0.05, MaxFreeDifferenceRatio: 0.05, MemoryDifferenceRatio: 0.05}, true},
		{"other CPU capacity", tmpl(base()), tmpl(base(fixture.WithCapacity(corev1.ResourceCPU, "8"))), def, false},
		{"allocatable CPU 4% apart", tmpl(base(withAlloc("4", "16Gi"))), tmpl(base(withAlloc("3840m", "16Gi"))), def, true},
		{"allocatable CPU 10% apart", tmpl(base(withAlloc("4", "16Gi"))), tmpl(base(withAlloc("3600m", "16Gi"))), def, false},
		{"allocatable CPU 10% apart, ratio raised", tmpl(base(withAlloc("4", "16Gi"))), tmpl(base(withAlloc("3600m", "16Gi"))),
			Similarity{MaxAllocatableDifferenceRatio: 0.1, MaxFreeDifferenceRatio: 0.1, MemoryDifferenceRatio: 0.015}, true},
		{"DaemonSets leave 25% less free CPU", tmpl(base()), tmpl(base(), ds("1")), def, false},
		{"DaemonSets leave 25% less free CPU, ratio raised", tmpl(base()), tmpl(base(), ds("1")),
			Similarity{MaxAllocatableDifferenceRatio: 0.05, MaxFreeDifferenceRatio: 0.3, MemoryDifferenceRatio: 0.015}, true},
		{"other label value", tmpl(base()), tmpl(base(fixture.WithNodeLabels(map[string]string{"team": "y"}))), def, false},
		{"other label value, ignored", tmpl(base()), tmpl(base(fixture.WithNodeLabels(map[string]string{"team": "y"}))),
			Similarity{IgnoredLabels: []string{"team"}, MaxAllocatableDifferenceRatio: 0.05, MaxFreeDifferenceRatio: 0.05, MemoryDifferenceRatio: 0.015}, true},
		{"extra label", tmpl(base()), tmpl(base(fixture.WithNodeLabels(map[string]string{"gpu": "none"}))), def, false},
		{"by balancing label: equal", tmpl(base()), tmpl(fixture.Node("n", fixture.WithCapacity(corev1.ResourceCPU, "64"),
			fixture.WithNodeLabels(map[string]string{"pool": "a"}))), Similarity{Labels: []string{"pool"}}, true},
		{"by balancing label: other value", tmpl(base()), tmpl(base(fixture.WithNodeLabels(map[string]string{"pool": "b"}))),
			Similarity{Labels: []string{"pool"}}, false},
		{"by balancing label: missing on both", tmpl(base()), tmpl(base()), Similarity{Labels: []string{"absent"}}, false},
		{"different taints", tmpl(base()), tmpl(base(fixture.WithTaints(corev1.Taint{Key: "gpu", Effect: corev1.TaintEffectNoSchedule}))), def, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := similar(tt.a, tt.b, tt.s); got != tt.want {
				t.Fatalf("similar = %v, want %v", got, tt.want)
			}
			if got := similar(tt.b, tt.a, tt.s); got != tt.want {
				t.Fatalf("similar (swapped) = %v, want %v", got, tt.want)
			}
		})
	}
}
