package simulator

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kscale/kscale/internal/fixture"
)

// benchNode returns a node with the given CPU (millicores), memory (MiB)
// and pod capacity, in the zone.
func benchNode(name, zone string, milliCPU, memMi, pods int64) *corev1.Node {
	n := fixture.Node(name, fixture.WithZone(zone))
	n.Status.Allocatable = corev1.ResourceList{
		corev1.ResourceCPU:    *resource.NewMilliQuantity(milliCPU, resource.DecimalSI),
		corev1.ResourceMemory: *resource.NewQuantity(memMi<<20, resource.BinarySI),
		corev1.ResourcePods:   *resource.NewQuantity(pods, resource.DecimalSI),
	}
	n.Status.Capacity = n.Status.Allocatable.DeepCopy()
	return n
}

// benchPods returns n pods of one ReplicaSet requesting milliCPU and memMi.
func benchPods(owner string, n int, milliCPU, memMi int64, opts ...fixture.PodOption) []*corev1.Pod {
	out := make([]*corev1.Pod, n)
	for i := range out {
		p := fixture.Pod(owner+"-"+strconv.Itoa(i), opts...)
		p.Labels["app"] = owner
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: owner,
			UID: types.UID("uid-" + owner), Controller: ptrTo(true)}}
		p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{
			corev1.ResourceCPU:    *resource.NewMilliQuantity(milliCPU, resource.DecimalSI),
			corev1.ResourceMemory: *resource.NewQuantity(memMi<<20, resource.BinarySI),
		}
		out[i] = p
	}
	return out
}

// cpuClock measures the process's user+system CPU time, so benchmarks can
// report CPU per op next to wall time on a machine shared with other jobs.
type cpuClock struct {
	b     *testing.B
	start time.Duration
}

func startCPU(b *testing.B) *cpuClock {
	b.ReportAllocs()
	return &cpuClock{b: b, start: processCPU(b)}
}

func (c *cpuClock) report() {
	if c.b.N > 0 {
		c.b.ReportMetric(float64(processCPU(c.b)-c.start)/float64(c.b.N), "cpu-ns/op")
	}
}

func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// forgetClasses drops the remembered equivalence classes, so every
// benchmark op groups its pods from scratch (a cold start).
func (s *Snapshot) forgetClasses() { s.groups = nil }

func ptrTo[T any](v T) *T { return &v }

// BenchmarkScaleUpHomogeneous: an empty group, 50,000 pending pods each 1/50
// of a node; filter-out-schedulable finds no node, the estimate needs
// exactly 1,000 nodes.
func BenchmarkScaleUpHomogeneous(b *testing.B) {
	snap := NewSnapshot()
	template := benchNode("group-a", "a", 10000, 10000, 110)
	pods := benchPods("web", 50000, 200, 200)
	clk := startCPU(b)
	defer clk.report()
	for b.Loop() {
		snap.forgetClasses()
		snap.Fork()
		fr := FilterSchedulable(snap, pods, FilterOptions{})
		res := Estimate(snap, EstimateInput{Template: template, Pods: fr.Remaining})
		snap.Revert()
		if res.NodeCount != 1000 {
			b.Fatalf("nodes = %d, want 1000", res.NodeCount)
		}
	}
}

// BenchmarkBinpacking: 50,000 pods of 50m and 1,000 of 95m into 1000m /
// 100-pod nodes need 2,595 nodes (cluster-autoscaler's estimator
// benchmark). Like that benchmark, which hands the estimator prebuilt
// equivalence groups, it measures the estimate with the pods' equivalence
// classes already known to the snapshot (from a previous call); the cold
// grouping is part of BenchmarkScaleUpHomogeneous.
func BenchmarkBinpacking(b *testing.B) {
	snap := NewSnapshot()
	template := benchNode("group-a", "a", 1000, 5000, 100)
	pods := append(benchPods("small", 50000, 50, 1), benchPods("medium", 1000, 95, 1)...)
	Estimate(snap, EstimateInput{Template: template, Pods: pods}) // learn the equivalence classes
	clk := startCPU(b)
	defer clk.report()
	for b.Loop() {
		res := Estimate(snap, EstimateInput{Template: template, Pods: pods})
		if res.NodeCount != 2595 {
			b.Fatalf("nodes = %d, want 2595", res.NodeCount)
		}
	}
}

// BenchmarkFilterSchedulable: 1,000 nodes with 1,000 bound pods and 12,000
// pending pods (120 ReplicaSets of 100) that fit on no node.
func BenchmarkFilterSchedulable(b *testing.B) {
	snap := NewSnapshot()
	for i := range 1000 {
		name := fmt.Sprintf("n%d", i)
		if err := snap.AddNode(benchNode(name, []string{"a", "b", "c"}[i%3], 4000, 16384, 110)); err != nil {
			b.Fatal(err)
		}
		p := fixture.Pod(fmt.Sprintf("bound-%d", i), fixture.OnNode(name), fixture.WithRequests("cpu", "1", "memory", "1Gi"))
		if err := snap.AddPod(p); err != nil {
			b.Fatal(err)
		}
	}
	var pods []*corev1.Pod
	for i := range 120 {
		pods = append(pods, benchPods(fmt.Sprintf("big-%d", i), 100, 3500+int64(i), 1024)...)
	}
	clk := startCPU(b)
	defer clk.report()
	for b.Loop() {
		snap.forgetClasses()
		snap.Fork()
		res := FilterSchedulable(snap, pods, FilterOptions{})
		snap.Revert()
		if len(res.Remaining) != 12000 {
			b.Fatalf("remaining = %d", len(res.Remaining))
		}
	}
}

// BenchmarkZoneSpread is node-autoscaler.md scenario S11: 30 groups (10
// pools x 3 zones) of 4 CPU / 32Gi nodes; 6 ReplicaSets of 1,000 bound and
// 150 pending pods (1m / 2500Mi, 13 per node) with a zonal spread
// constraint. Pending pods go through filter-out-schedulable and then one
// estimate over the three zones' templates; every zone must end with 177 or
// 178 nodes, as the scenario requires.
func BenchmarkZoneSpread(b *testing.B) {
	zones := []string{"eu-central-1a", "eu-central-1b", "eu-central-1c"}
	snap := NewSnapshot()
	var pending []*corev1.Pod
	node, onNode := -1, 13
	for rs := range 6 {
		name := fmt.Sprintf("rs-%d", rs)
		tsc := fixture.WithTopologySpread(corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone,
			WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"tsc-group": name}}})
		pods := benchPods(name, 1150, 1, 2500, tsc, fixture.WithLabels(map[string]string{"tsc-group": name}))
		for _, p := range pods[:1000] {
			if onNode == 13 {
				node++
				onNode = 0
				n := benchNode(fmt.Sprintf("node-%d", node), zones[node%3], 4000, 32768, 110)
				n.Labels["pool"] = fmt.Sprintf("pool-%d", (node/3)%10)
				if err := snap.AddNode(n); err != nil {
					b.Fatal(err)
				}
			}
			p.Spec.NodeName = fmt.Sprintf("node-%d", node)
			if err := snap.AddPod(p); err != nil {
				b.Fatal(err)
			}
			onNode++
		}
		pending = append(pending, pods[1000:]...)
	}
	clk := startCPU(b)
	defer clk.report()
	var templates []*corev1.Node
	for _, z := range zones {
		templates = append(templates, benchNode("pool-0-"+z, z, 4000, 32768, 110))
	}
	for b.Loop() {
		snap.forgetClasses()
		snap.Fork()
		fr := FilterSchedulable(snap, pending, FilterOptions{})
		res := Estimate(snap, EstimateInput{Template: templates[0], SimilarTemplates: templates[1:], Pods: fr.Remaining})
		snap.Revert()
		perZone := map[string]int{}
		for _, n := range snap.Nodes() {
			perZone[n.Node().Labels[corev1.LabelTopologyZone]]++
		}
		for _, n := range res.Nodes {
			perZone[n.Node.Labels[corev1.LabelTopologyZone]]++
		}
		// S11: each zone ends with E or E+1 nodes, E = round(6*1150/(3*13)) = 177.
		for z, n := range perZone {
			if n < 177 || n > 178 || len(res.Unschedulable) > 0 {
				b.Fatalf("zone %s has %d nodes (want 177 or 178), %d unschedulable", z, n, len(res.Unschedulable))
			}
		}
	}
}

// BenchmarkAntiAffinitySurge: 5,000 nodes in 3 zones with 10 pods each, all
// in required anti-affinity pairs, and 1,000 node-sized surge pods in
// anti-affinity pairs; hostname and zone variants. One op is
// filter-out-schedulable plus the estimate for one zone's group.
func BenchmarkAntiAffinitySurge(b *testing.B) {
	for _, v := range []struct{ name, key string }{{"hostname", corev1.LabelHostname}, {"zone", corev1.LabelTopologyZone}} {
		key := v.key
		b.Run(v.name, func(b *testing.B) {
			snap, surge := antiAffinityCluster(b, key)
			template := benchNode("group-a", "a", 4000, 16384, 110)
			// Build the label and anti-affinity indexes once (about 0.3 s of
			// CPU for 50,000 pods), as a long-lived snapshot has them.
			if snap.CheckFit(surge[0], "n0") == nil {
				b.Fatal("a surge pod fits an occupied node")
			}
			clk := startCPU(b)
			defer clk.report()
			for b.Loop() {
				snap.forgetClasses()
				snap.Fork()
				fr := FilterSchedulable(snap, surge, FilterOptions{})
				res := Estimate(snap, EstimateInput{Template: template, Pods: fr.Remaining})
				snap.Revert()
				if want := map[string]int{corev1.LabelHostname: 1000, corev1.LabelTopologyZone: 500}[key]; res.NodeCount != want {
					b.Fatalf("nodes = %d, want %d", res.NodeCount, want)
				}
			}
		})
	}
}

func antiAffinityCluster(b *testing.B, key string) (*Snapshot, []*corev1.Pod) {
	zones := []string{"a", "b", "c"}
	snap := NewSnapshot()
	pairPod := func(name, pair string, milliCPU int64, nodeName string) *corev1.Pod {
		p := benchPods(name, 1, milliCPU, 256, fixture.WithAffinity(&corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"pair": pair}}, TopologyKey: key,
			}},
		}}))[0]
		p.Labels["pair"] = pair
		p.OwnerReferences[0].UID = types.UID("uid-" + pair)
		p.Spec.NodeName = nodeName
		return p
	}
	for i := range 5000 {
		name := fmt.Sprintf("n%d", i)
		if err := snap.AddNode(benchNode(name, zones[i%3], 4000, 16384, 110)); err != nil {
			b.Fatal(err)
		}
	}
	// Pair j puts its two pods on nodes 2j' and 2j'+1 (neighbours are in
	// different zones), so every pair satisfies both variants.
	for i := range 25000 {
		pair := fmt.Sprintf("pair-%d", i)
		first, second := (2*i)%5000, (2*i+1)%5000
		for k, n := range []int{first, second} {
			if err := snap.AddPod(pairPod(fmt.Sprintf("p-%d-%d", i, k), pair, 100, fmt.Sprintf("n%d", n))); err != nil {
				b.Fatal(err)
			}
		}
	}
	var surge []*corev1.Pod
	for i := range 500 {
		pair := fmt.Sprintf("surge-%d", i)
		surge = append(surge, pairPod(pair+"-0", pair, 3500, ""), pairPod(pair+"-1", pair, 3500, ""))
	}
	return snap, surge
}

// BenchmarkDiverseMix: 20,000 pods, a fifth each generic, zonal spread,
// hostname spread, zonal self-affinity and mutual hostname anti-affinity,
// each with random requests (100m-1.5 CPU, 100Mi-4Gi); apps of 80 (generic),
// 200 (spread, affinity) and 10 (anti-affinity) pods; placed on a 3-zone
// cluster of 1,200 empty 16-CPU nodes, the rest estimated on zone a's
// group. Every pod has its own requests, so equivalence groups do not help.
func BenchmarkDiverseMix(b *testing.B) {
	zones := []string{"a", "b", "c"}
	snap := NewSnapshot()
	for i := range 1200 {
		if err := snap.AddNode(benchNode(fmt.Sprintf("n%d", i), zones[i%3], 16000, 65536, 110)); err != nil {
			b.Fatal(err)
		}
	}
	pods := diversePods(20000)
	template := benchNode("group-a", "a", 16000, 65536, 110)
	clk := startCPU(b)
	defer clk.report()
	for b.Loop() {
		snap.forgetClasses()
		snap.Fork()
		fr := FilterSchedulable(snap, pods, FilterOptions{})
		res := Estimate(snap, EstimateInput{Template: template, Pods: fr.Remaining})
		snap.Revert()
		if len(fr.Placements) == 0 || res.NodeCount < 0 {
			b.Fatal("nothing placed")
		}
	}
	b.ReportMetric(float64(len(pods))*float64(b.N)/b.Elapsed().Seconds(), "pods/s")
}

func diversePods(n int) []*corev1.Pod {
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([]*corev1.Pod, 0, n)
	for i := range n {
		kind, j := i%5, i/5
		var app string
		var opt fixture.PodOption
		switch kind {
		case 0:
			app = fmt.Sprintf("generic-%d", j%50)
		case 1:
			app = fmt.Sprintf("zspread-%d", j%20)
			opt = fixture.WithTopologySpread(spreadOn(corev1.LabelTopologyZone, app))
		case 2:
			app = fmt.Sprintf("hspread-%d", j%20)
			opt = fixture.WithTopologySpread(spreadOn(corev1.LabelHostname, app))
		case 3:
			app = fmt.Sprintf("zaff-%d", j%20)
			opt = fixture.WithAffinity(&corev1.Affinity{PodAffinity: &corev1.PodAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{termOn(corev1.LabelTopologyZone, app)}}})
		default:
			app = fmt.Sprintf("anti-%d", j%400)
			opt = fixture.WithAffinity(&corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{termOn(corev1.LabelHostname, app)}}})
		}
		opts := []fixture.PodOption{}
		if opt != nil {
			opts = append(opts, opt)
		}
		p := benchPods(app, 1, 100+rng.Int64N(1400), 100+rng.Int64N(3996), opts...)[0]
		p.Name = fmt.Sprintf("%s-%d", app, i)
		out = append(out, p)
	}
	return out
}

func spreadOn(key, app string) corev1.TopologySpreadConstraint {
	return corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: key, WhenUnsatisfiable: corev1.DoNotSchedule,
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}}
}

func termOn(key, app string) corev1.PodAffinityTerm {
	return corev1.PodAffinityTerm{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}, TopologyKey: key}
}
