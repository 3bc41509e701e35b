package nodeautoscaler

import (
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/simulator"
)

// contents lists every node with its pods' names and requests.
func contents(snap *simulator.Snapshot) []string {
	var out []string
	for _, n := range snap.Nodes() {
		var pods []string
		for _, p := range n.Pods() {
			pods = append(pods, fmt.Sprintf("%s@%p", p.Name, p))
		}
		slices.Sort(pods)
		out = append(out, fmt.Sprintf("%s %p %v %+v", n.Node().Name, n.Node(), pods, n.Requested()))
	}
	slices.Sort(out)
	return out
}

// fresh is a snapshot built from scratch.
func fresh(t *testing.T, nodes []*corev1.Node, pods []*corev1.Pod) []string {
	t.Helper()
	snap := simulator.NewSnapshot()
	for _, n := range nodes {
		if err := snap.AddNode(n); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range pods {
		if err := snap.AddPod(p); err != nil {
			t.Fatal(err)
		}
	}
	return contents(snap)
}

func TestSnapshotCacheSync(t *testing.T) {
	a, b, c := fixture.Node("a"), fixture.Node("b"), fixture.Node("c")
	p1 := fixture.Pod("p1", fixture.OnNode("a"), fixture.WithRequests("cpu", "100m"))
	p2 := fixture.Pod("p2", fixture.OnNode("b"), fixture.WithRequests("cpu", "200m"))
	p3 := fixture.Pod("p3", fixture.OnNode("b"), fixture.WithRequests("cpu", "300m"))
	p1v2 := fixture.Pod("p1", fixture.OnNode("a"), fixture.WithRequests("cpu", "150m"))
	b2 := fixture.Node("b", fixture.WithCapacity(corev1.ResourceCPU, "8"))
	p1onC := fixture.Pod("p1", fixture.OnNode("c"), fixture.WithRequests("cpu", "150m"))
	steps := []struct {
		name  string
		nodes []*corev1.Node
		pods  []*corev1.Pod
	}{
		{"first", []*corev1.Node{a, b}, []*corev1.Pod{p1, p2}},
		{"same objects again", []*corev1.Node{a, b}, []*corev1.Pod{p1, p2}},
		{"a pod added", []*corev1.Node{a, b}, []*corev1.Pod{p1, p2, p3}},
		{"a pod replaced by a new object", []*corev1.Node{a, b}, []*corev1.Pod{p1v2, p2, p3}},
		{"a node replaced, a node added", []*corev1.Node{a, b2, c}, []*corev1.Pod{p1v2, p2}},
		{"the same pods in another order", []*corev1.Node{a, b2, c}, []*corev1.Pod{p2, p1v2}},
		{"a pod moved to another node", []*corev1.Node{a, b2, c}, []*corev1.Pod{p2, p1onC}},
		{"two objects of one name: one is kept", []*corev1.Node{a, b2, c}, []*corev1.Pod{p2, p1onC, p1}},
		{"a node and a pod gone", []*corev1.Node{b2, c}, []*corev1.Pod{p2}},
	}
	var cache snapshotCache
	for _, st := range steps {
		snap, err := cache.sync(st.nodes, st.pods)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		pods := st.pods
		if st.name == "two objects of one name: one is kept" {
			pods = []*corev1.Pod{p2, p1} // the object listed later replaced the held one
		}
		if got, want := contents(snap), fresh(t, st.nodes, pods); !slices.Equal(got, want) {
			t.Fatalf("%s: snapshot\n %v\nwant\n %v", st.name, got, want)
		}
	}
	// A pod on a node the snapshot lacks fails the sync, and the cache starts over.
	if _, err := cache.sync([]*corev1.Node{a}, []*corev1.Pod{p2}); err == nil {
		t.Fatal("sync with a pod on a missing node succeeded")
	}
	snap, err := cache.sync([]*corev1.Node{a}, []*corev1.Pod{p1})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := contents(snap), fresh(t, []*corev1.Node{a}, []*corev1.Pod{p1}); !slices.Equal(got, want) {
		t.Fatalf("after an error: snapshot %v, want %v", got, want)
	}
}

// fits reports whether the pod fits on some node of the snapshot, leaving
// the snapshot as it was.
func fits(snap *simulator.Snapshot, p *corev1.Pod) bool {
	snap.Fork()
	defer snap.Revert()
	return len(simulator.FilterSchedulable(snap, []*corev1.Pod{p}, simulator.FilterOptions{}).Placements) == 1
}

func TestSnapshotCacheObjects(t *testing.T) {
	a := fixture.Node("a")
	db := fixture.Pod("db", fixture.InNamespace("team-a"), fixture.OnNode("a"), fixture.WithLabels(map[string]string{"app": "db"}))
	nodes, pods := []*corev1.Node{a}, []*corev1.Pod{db}
	// nearDB must run next to a pod labelled app=db in a namespace labelled team=a.
	nearDB := fixture.Pod("near-db", fixture.WithAffinity(&corev1.Affinity{PodAffinity: &corev1.PodAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			LabelSelector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}},
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}},
			TopologyKey:       fixture.LabelHostname,
		}},
	}}))
	withClaim := fixture.Pod("with-claim", func(p *corev1.Pod) {
		p.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}}
	})
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a", Labels: map[string]string{"team": "a"}}}
	unbound, bound := claim("data", "", "wffc"), claim("data", "pv-1", "")
	pv, class := volume("pv-1", ""), []*storagev1.StorageClass{lateBinding("wffc")}
	steps := []struct {
		name                  string
		objects               clusterObjects
		wantNearDB, wantClaim bool
	}{
		{"no objects", clusterObjects{}, false, false},
		{"namespace and unbound claim", clusterObjects{namespaces: []*corev1.Namespace{ns}, pvcs: []*corev1.PersistentVolumeClaim{unbound},
			classes: class}, true, true},
		{"same objects again", clusterObjects{namespaces: []*corev1.Namespace{ns}, pvcs: []*corev1.PersistentVolumeClaim{unbound},
			classes: class}, true, true},
		{"storage class gone", clusterObjects{namespaces: []*corev1.Namespace{ns}, pvcs: []*corev1.PersistentVolumeClaim{unbound}}, true, false},
		{"claim bound to a missing volume", clusterObjects{namespaces: []*corev1.Namespace{ns}, pvcs: []*corev1.PersistentVolumeClaim{bound}}, true, false},
		{"volume added", clusterObjects{namespaces: []*corev1.Namespace{ns}, pvcs: []*corev1.PersistentVolumeClaim{bound},
			pvs: []*corev1.PersistentVolume{pv}}, true, true},
		{"namespace gone", clusterObjects{pvcs: []*corev1.PersistentVolumeClaim{bound}, pvs: []*corev1.PersistentVolume{pv}}, false, true},
		{"volume gone", clusterObjects{pvcs: []*corev1.PersistentVolumeClaim{bound}}, false, false},
		{"everything gone", clusterObjects{}, false, false},
	}
	var cache snapshotCache
	for _, st := range steps {
		cache.setObjects(st.objects)
		snap, err := cache.sync(nodes, pods)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if got, want := contents(snap), fresh(t, nodes, pods); !slices.Equal(got, want) {
			t.Fatalf("%s: snapshot\n %v\nwant\n %v", st.name, got, want)
		}
		if got := fits(snap, nearDB); got != st.wantNearDB {
			t.Errorf("%s: pod with a namespaceSelector fits = %v, want %v", st.name, got, st.wantNearDB)
		}
		if got := fits(snap, withClaim); got != st.wantClaim {
			t.Errorf("%s: pod with a claim fits = %v, want %v", st.name, got, st.wantClaim)
		}
	}
}
