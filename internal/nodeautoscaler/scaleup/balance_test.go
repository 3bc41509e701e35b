package scaleup

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
		pending []*corev1.Pod
		want    string
	}{
		// Each group's estimate alone fits one pod in its zone.
		{"spread over three zones", []string{"a", "b", "c"}, workload("web", 12, true), "general-a+2,general-b+2,general-c+2"},
		// Equal creation times put plain pods first (by name); they must
		// not fill one zone's upcoming nodes before the spread pods.
		{"plain pods created with the spread pods", []string{"a", "b"},
			append(workload("api", 4, false), workload("web", 8, true)...), "general-a+3,general-b+3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var groups []Group
			for _, z := range tt.zones {
				groups = append(groups, zonal(z, 1, 0))
			}
			snap := fullZones(t, tt.zones...)
			plan := run(t, Input{Snapshot: snap, Pending: tt.pending, Balance: true, Groups: groups})
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
			again := run(t, Input{Snapshot: snap, Pending: tt.pending, Balance: true, Groups: groups})
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
