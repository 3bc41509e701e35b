package simulator

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kscale/kscale/internal/fixture"
)

var rsGVK = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "ReplicaSet"}

// replicas returns n pods of one ReplicaSet built with the options.
func replicas(name string, n int, opts ...fixture.PodOption) []*corev1.Pod {
	out := make([]*corev1.Pod, n)
	for i := range out {
		o := append([]fixture.PodOption{
			fixture.WithLabels(map[string]string{"app": name}),
			fixture.WithOwner(rsGVK, name, types.UID("uid-"+name)),
		}, opts...)
		out[i] = fixture.Pod(fmt.Sprintf("%s-%d", name, i), o...)
	}
	return out
}

func TestEstimateResources(t *testing.T) {
	template := fixture.Node("tmpl", fixture.WithZone("a"))
	cases := []struct {
		name         string
		pods         []*corev1.Pod
		ds           []*corev1.Pod
		maxNodes     int
		wantNodes    int
		wantUnsched  int
		wantUnplaced int
		wantFilter   string
		wantReason   string
	}{
		{name: "cpu bound", pods: replicas("web", 10, fixture.WithRequests("cpu", "1")), wantNodes: 3},
		{name: "memory bound", pods: replicas("mem", 5, fixture.WithRequests("memory", "7Gi")), wantNodes: 3},
		{name: "daemonset overhead", pods: replicas("web", 4, fixture.WithRequests("cpu", "1")),
			ds: []*corev1.Pod{fixture.Pod("ds", fixture.WithRequests("cpu", "500m"))}, wantNodes: 2},
		{name: "too big", pods: replicas("big", 2, fixture.WithRequests("cpu", "5")), wantUnsched: 2,
			wantFilter: FilterNodeResourcesFit, wantReason: "Insufficient cpu"},
		{name: "gpu missing", pods: replicas("gpu", 1, fixture.WithRequests("nvidia.com/gpu", "1")), wantUnsched: 1,
			wantFilter: FilterNodeResourcesFit, wantReason: "Insufficient nvidia.com/gpu"},
		{name: "max nodes", pods: replicas("web", 10, fixture.WithRequests("cpu", "1")), maxNodes: 2, wantNodes: 2,
			wantUnplaced: 2},
		{name: "node selector mismatch", pods: replicas("sel", 1, fixture.WithNodeSelector(map[string]string{"pool": "x"})),
			wantUnsched: 1, wantFilter: FilterNodeAffinity},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := NewSnapshot()
			res := Estimate(s, EstimateInput{Template: template, Pods: tc.pods, DaemonSetPods: tc.ds, MaxNodes: tc.maxNodes})
			if res.NodeCount != tc.wantNodes || len(res.Unschedulable) != tc.wantUnsched || len(res.Unplaced) != tc.wantUnplaced {
				t.Fatalf("nodes %d unsched %d unplaced %d, want %d %d %d", res.NodeCount, len(res.Unschedulable),
					len(res.Unplaced), tc.wantNodes, tc.wantUnsched, tc.wantUnplaced)
			}
			if res.Partial != (tc.wantUnplaced > 0) {
				t.Fatalf("partial = %v", res.Partial)
			}
			if tc.wantFilter != "" {
				fe := res.Unschedulable[0].Err
				if fe.Filter != tc.wantFilter || (tc.wantReason != "" && fe.Reason != tc.wantReason) {
					t.Fatalf("fit error = %v", fe)
				}
			}
			placed := 0
			for _, n := range res.Nodes {
				placed += len(n.Pods)
				if n.Node.Labels[corev1.LabelHostname] != n.Node.Name || n.Node.Labels[corev1.LabelTopologyZone] != "a" {
					t.Fatalf("new node labels %v", n.Node.Labels)
				}
			}
			if placed+len(res.Unschedulable)+len(res.Unplaced) != len(tc.pods) {
				t.Fatalf("placed %d of %d", placed, len(tc.pods))
			}
			if s.NodeCount() != 0 || s.PodCount() != 0 {
				t.Fatalf("snapshot changed: %s", s)
			}
		})
	}
}

func TestEstimateDeadline(t *testing.T) {
	calls := 0
	deadline := func() bool { calls++; return calls > 2 }
	pods := append(replicas("a", 3, fixture.WithRequests("cpu", "3")), replicas("b", 3, fixture.WithRequests("cpu", "2"))...)
	res := Estimate(NewSnapshot(), EstimateInput{Template: fixture.Node("t"), Pods: pods, Deadline: deadline})
	if !res.Partial || res.NodeCount == 0 || len(res.Unplaced) == 0 {
		t.Fatalf("result %+v", res)
	}
}

func TestFilterSchedulableResources(t *testing.T) {
	s := NewSnapshot()
	mustAddNode(t, s, fixture.Node("n1"))
	mustAddNode(t, s, fixture.Node("n2"))
	mustAddPod(t, s, fixture.Pod("bound", fixture.OnNode("n1"), fixture.WithRequests("cpu", "3")))
	pods := replicas("web", 6, fixture.WithRequests("cpu", "1"))
	high := fixture.Pod("urgent", fixture.WithRequests("cpu", "4"), fixture.WithPriority(100))
	pods = append(pods, high)
	s.Fork()
	res := FilterSchedulable(s, pods, FilterOptions{})
	if len(res.Placements) != 2 || res.Placements[0].Pod != high || res.Placements[0].NodeName != "n2" {
		t.Fatalf("placements %+v", res.Placements)
	}
	if res.Placements[1].NodeName != "n1" || len(res.Remaining) != 5 {
		t.Fatalf("placements %+v remaining %d", res.Placements, len(res.Remaining))
	}
	if s.PodCount() != 3 {
		t.Fatalf("snapshot %s", s)
	}
	s.Revert()
	if s.PodCount() != 1 {
		t.Fatalf("snapshot after revert %s", s)
	}
}

func TestEstimateTopology(t *testing.T) {
	hostSpread := fixture.WithTopologySpread(corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: corev1.LabelHostname,
		WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}})
	dbAffinity := fixture.WithAffinity(&corev1.Affinity{PodAffinity: &corev1.PodAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, TopologyKey: corev1.LabelTopologyZone,
		}}}})
	cases := []struct {
		name        string
		pods        []*corev1.Pod
		wantNodes   int
		wantUnsched int
		wantFilter  string
	}{
		{name: "hostname anti-affinity: one per node", pods: replicas("web", 5, antiAffinity(corev1.LabelHostname, "web")), wantNodes: 5},
		{name: "zone anti-affinity: one per zone, and zone a is taken", pods: replicas("web", 2, antiAffinity(corev1.LabelTopologyZone, "web")),
			wantUnsched: 2, wantFilter: FilterInterPodAffinity},
		{name: "zonal spread honours existing zones", pods: replicas("web", 3, zonalSpread("web")), wantNodes: 1, wantUnsched: 2,
			wantFilter: FilterPodTopologySpread},
		{name: "hostname spread: new nodes level up with the existing ones (2 each)", pods: replicas("web", 4, hostSpread), wantNodes: 2},
		{name: "affinity to pods in another zone", pods: replicas("api", 2, dbAffinity), wantUnsched: 2, wantFilter: FilterInterPodAffinity},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := NewSnapshot()
			for _, z := range []string{"a", "b", "c"} {
				mustAddNode(t, s, fixture.Node("n-"+z, fixture.WithZone(z)))
				mustAddPod(t, s, fixture.Pod("fill-"+z, fixture.OnNode("n-"+z), fixture.WithRequests("cpu", "3900m")))
				for i := range 2 {
					mustAddPod(t, s, fixture.Pod(fmt.Sprintf("old-%s-%d", z, i), fixture.OnNode("n-"+z), fixture.WithRequests("cpu", "10m"),
						fixture.WithLabels(map[string]string{"app": "web"})))
				}
			}
			mustAddPod(t, s, fixture.Pod("db", fixture.OnNode("n-b"), fixture.WithRequests("cpu", "10m")))
			ds := fixture.Pod("agent", fixture.WithRequests("cpu", "100m"))
			res := Estimate(s, EstimateInput{Template: fixture.Node("tmpl", fixture.WithZone("a")), Pods: tc.pods, DaemonSetPods: []*corev1.Pod{ds}})
			if res.NodeCount != tc.wantNodes || len(res.Unschedulable) != tc.wantUnsched {
				t.Fatalf("nodes %d unschedulable %v", res.NodeCount, res.Unschedulable)
			}
			if tc.wantFilter != "" && res.Unschedulable[0].Err.Filter != tc.wantFilter {
				t.Fatalf("fit error %v", res.Unschedulable[0].Err)
			}
			for _, n := range res.Nodes {
				for _, p := range n.Pods {
					if p.Name == ds.Name {
						t.Fatal("DaemonSet pod listed as a placed pod")
					}
				}
			}
		})
	}
}

func TestEstimateSimilarTemplates(t *testing.T) {
	a, b, c := fixture.Node("pool-a", fixture.WithZone("a")), fixture.Node("pool-b", fixture.WithZone("b")), fixture.Node("pool-c", fixture.WithZone("c"))
	cases := []struct {
		name        string
		pods        []*corev1.Pod
		wantPerZone map[string]int
		wantUnsched int
	}{
		{name: "zonal spread uses every zone", pods: replicas("web", 9, zonalSpread("web")),
			wantPerZone: map[string]int{"a": 3, "b": 3, "c": 3}},
		{name: "zonal anti-affinity: one per zone, the fourth is unschedulable",
			pods: replicas("db", 4, antiAffinity(corev1.LabelTopologyZone, "db")), wantPerZone: map[string]int{"a": 1, "b": 1, "c": 1},
			wantUnsched: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// Full nodes in every zone make the zones topology domains.
			s := NewSnapshot()
			for _, z := range []string{"a", "b", "c"} {
				mustAddNode(t, s, fixture.Node("full-"+z, fixture.WithZone(z)))
				mustAddPod(t, s, fixture.Pod("fill-"+z, fixture.OnNode("full-"+z), fixture.WithRequests("cpu", "4")))
			}
			res := Estimate(s, EstimateInput{Template: a, SimilarTemplates: []*corev1.Node{b, c}, Pods: tc.pods})
			perZone := map[string]int{}
			for _, n := range res.Nodes {
				if n.Node.Labels[corev1.LabelTopologyZone] != n.Template.Labels[corev1.LabelTopologyZone] {
					t.Fatalf("node %s not in its template's zone", n.Node.Name)
				}
				perZone[n.Node.Labels[corev1.LabelTopologyZone]] += len(n.Pods)
			}
			if len(res.Unschedulable) != tc.wantUnsched || len(perZone) != len(tc.wantPerZone) {
				t.Fatalf("per zone %v, unschedulable %d", perZone, len(res.Unschedulable))
			}
			for z, n := range tc.wantPerZone {
				if perZone[z] != n {
					t.Fatalf("per zone %v, want %v", perZone, tc.wantPerZone)
				}
			}
		})
	}
}

func TestEstimateWithoutTemplate(t *testing.T) {
	res := Estimate(NewSnapshot(), EstimateInput{Pods: replicas("web", 2)})
	if len(res.Unschedulable) != 2 || res.NodeCount != 0 || !IsFilter(res.Unschedulable[0].Err, FilterNodeNotFound) {
		t.Fatalf("result %+v", res)
	}
}
