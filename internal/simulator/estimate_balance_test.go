package simulator

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/fixture"
)

// zoneSpread is a DoNotSchedule zone spread constraint with maxSkew 1 over
// the pods labelled app=name.
func zoneSpread(name string) corev1.TopologySpreadConstraint {
	return corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule,
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}}
}

// newNodesPerTemplate renders an estimate's new nodes as "tmpl-a=1,..." in
// template order.
func newNodesPerTemplate(res EstimateResult, templates []*corev1.Node) string {
	var parts []string
	for _, t := range templates {
		count := 0
		for _, n := range res.Nodes {
			if n.Template == t {
				count++
			}
		}
		if count > 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", t.Name, count))
		}
	}
	return strings.Join(parts, ",")
}

// TestEstimateBySize covers Sizes and Rooms: new nodes come from the
// template with the fewest nodes that the pods fit, within each
// template's room, so zone spread is estimated over every zone.
func TestEstimateBySize(t *testing.T) {
	templates := []*corev1.Node{fixture.Node("tmpl-a", fixture.WithZone("a")), fixture.Node("tmpl-b", fixture.WithZone("b")),
		fixture.Node("tmpl-c", fixture.WithZone("c"))}
	spread := func(n int) []*corev1.Pod {
		return replicas("web", n, fixture.WithRequests("cpu", "3"), fixture.WithTopologySpread(zoneSpread("web")))
	}
	cases := []struct {
		name         string
		existing     map[string]int // matching pods bound per zone, one node per zone
		pods         []*corev1.Pod
		sizes, rooms []int
		maxNodes     int
		want         string
		wantLeft     int
	}{
		{name: "smallest group first", pods: replicas("plain", 4, fixture.WithRequests("cpu", "3")), sizes: []int{2, 0, 0},
			want: "tmpl-b=2,tmpl-c=2"},
		{name: "equal sizes take turns in template order", pods: replicas("plain", 4, fixture.WithRequests("cpu", "3")),
			sizes: []int{1, 1, 1}, want: "tmpl-a=2,tmpl-b=1,tmpl-c=1"},
		{name: "room caps a template", pods: replicas("plain", 4, fixture.WithRequests("cpu", "3")), sizes: []int{0, 0, 0},
			rooms: []int{1, 0, 10}, want: "tmpl-a=1,tmpl-c=3"},
		{name: "zone spread fills every zone", existing: map[string]int{"a": 0, "b": 0, "c": 0}, pods: spread(6),
			sizes: []int{1, 1, 1}, want: "tmpl-a=2,tmpl-b=2,tmpl-c=2"},
		{name: "zone spread starts with the emptiest zone", existing: map[string]int{"a": 2, "b": 1, "c": 1}, pods: spread(4),
			sizes: []int{1, 1, 1}, want: "tmpl-a=1,tmpl-b=2,tmpl-c=1"},
		{name: "templates a pod does not fit leave MaxNodes alone", pods: replicas("pinned", 2, fixture.WithRequests("cpu", "3"),
			fixture.WithNodeSelector(map[string]string{corev1.LabelTopologyZone: "c"})), sizes: []int{0, 0, 0}, maxNodes: 1,
			want: "tmpl-c=1", wantLeft: 1},
		{name: "zone without room bounds the spread", existing: map[string]int{"a": 0, "b": 0, "c": 0}, pods: spread(4),
			sizes: []int{1, 1, 1}, rooms: []int{0, 5, 5}, want: "tmpl-b=1,tmpl-c=1", wantLeft: 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := NewSnapshot()
			for _, zone := range slices.Sorted(maps.Keys(tc.existing)) {
				node := "node-" + zone
				if err := s.AddNode(fixture.Node(node, fixture.WithZone(zone))); err != nil {
					t.Fatal(err)
				}
				// A filler the spread does not count keeps the pods of the
				// cases (3 CPUs) off the existing nodes, as the filter step
				// before an estimate would have placed them there otherwise.
				filler := replicas("filler", 1, fixture.WithRequests("cpu", "2"), fixture.OnNode(node))[0]
				filler.Name = "filler-" + zone
				if err := s.AddPod(filler); err != nil {
					t.Fatal(err)
				}
				for i := range tc.existing[zone] {
					p := replicas("web", 1, fixture.WithRequests("cpu", "1"), fixture.OnNode(node))[0]
					p.Name = fmt.Sprintf("bound-%s-%d", zone, i)
					if err := s.AddPod(p); err != nil {
						t.Fatal(err)
					}
				}
			}
			res := Estimate(s, EstimateInput{Template: templates[0], SimilarTemplates: templates[1:], Sizes: tc.sizes, Rooms: tc.rooms,
				MaxNodes: tc.maxNodes, Pods: tc.pods})
			if got := newNodesPerTemplate(res, templates); got != tc.want {
				t.Fatalf("new nodes %q, want %q", got, tc.want)
			}
			if left := len(res.Unschedulable) + len(res.Unplaced); left != tc.wantLeft {
				t.Fatalf("%d pods left, want %d", left, tc.wantLeft)
			}
			for _, n := range res.Nodes {
				if n.Node.Labels[corev1.LabelTopologyZone] != n.Template.Labels[corev1.LabelTopologyZone] {
					t.Fatalf("node %s has zone %q, its template %q", n.Node.Name, n.Node.Labels[corev1.LabelTopologyZone],
						n.Template.Labels[corev1.LabelTopologyZone])
				}
			}
		})
	}
}

// TestEstimateMinDomainsUsesExistingNodes is the regression test of needless
// nodes for zone spread with minDomains above the zones that have nodes:
// the existing nodes in zones a and b have room, but minDomains 3 keeps the
// pods off them until zone c has a node. One new node in c is enough; the
// estimate used to add a node in every zone.
func TestEstimateMinDomainsUsesExistingNodes(t *testing.T) {
	s := NewSnapshot()
	for _, zone := range []string{"a", "b"} {
		node := "node-" + zone
		if err := s.AddNode(fixture.Node(node, fixture.WithZone(zone))); err != nil {
			t.Fatal(err)
		}
		bound := replicas("web", 1, fixture.WithRequests("cpu", "100m"), fixture.OnNode(node))[0]
		bound.Name = "bound-" + zone
		if err := s.AddPod(bound); err != nil {
			t.Fatal(err)
		}
	}
	spread := zoneSpread("web")
	three := int32(3)
	spread.MinDomains = &three
	pods := replicas("web", 4, fixture.WithRequests("cpu", "100m"), fixture.WithTopologySpread(spread))
	templates := []*corev1.Node{fixture.Node("tmpl-a", fixture.WithZone("a")), fixture.Node("tmpl-b", fixture.WithZone("b")),
		fixture.Node("tmpl-c", fixture.WithZone("c"))}
	res := Estimate(s, EstimateInput{Template: templates[0], SimilarTemplates: templates[1:], Sizes: []int{1, 1, 0}, Pods: pods})
	if got := newNodesPerTemplate(res, templates); got != "tmpl-c=1" {
		t.Fatalf("new nodes %q, want %q", got, "tmpl-c=1")
	}
	placed := len(res.OnExisting)
	for _, n := range res.Nodes {
		placed += len(n.Pods)
	}
	if placed != len(pods) || len(res.Unplaced)+len(res.Unschedulable) != 0 {
		t.Fatalf("%d of %d pods placed (%d on existing nodes), %d left", placed, len(pods), len(res.OnExisting), len(res.Unplaced)+len(res.Unschedulable))
	}
}
