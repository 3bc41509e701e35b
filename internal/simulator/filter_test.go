package simulator

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/fixture"
)

func zonalSpread(app string) fixture.PodOption {
	return fixture.WithTopologySpread(corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone,
		WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}})
}

func antiAffinity(key, app string) fixture.PodOption {
	return fixture.WithAffinity(&corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}, TopologyKey: key,
		}}}})
}

func TestCheckFitReasons(t *testing.T) {
	s := NewSnapshot()
	mustAddNode(t, s, fixture.Node("n1", fixture.WithZone("a")))
	mustAddNode(t, s, fixture.Node("cordoned", fixture.Unschedulable()))
	mustAddPod(t, s, fixture.Pod("db", fixture.OnNode("n1"), antiAffinity(corev1.LabelHostname, "web")))
	bad := fixture.Pod("bad", fixture.WithAffinity(&corev1.Affinity{PodAffinity: &corev1.PodAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Bogus"}}},
			TopologyKey:   "zone",
		}}}}))
	cases := []struct {
		name, node, filter, reason string
		pod                        *corev1.Pod
	}{
		{name: "fits", node: "n1", pod: fixture.Pod("ok")},
		{name: "missing node", node: "nope", filter: FilterNodeNotFound, pod: fixture.Pod("ok")},
		{name: "cordoned", node: "cordoned", filter: FilterNodeUnschedulable, pod: fixture.Pod("ok")},
		{name: "node name", node: "n1", filter: FilterNodeName, pod: fixture.Pod("pinned", fixture.OnNode("other"))},
		{name: "cpu", node: "n1", filter: FilterNodeResourcesFit, reason: "Insufficient cpu", pod: fixture.Pod("big", fixture.WithRequests("cpu", "5"))},
		{name: "existing anti-affinity", node: "n1", filter: FilterInterPodAffinity, reason: "node(s) didn't satisfy existing pods anti-affinity rules",
			pod: fixture.Pod("web")},
		{name: "unparsable selector", node: "n1", filter: FilterPodSpec, pod: bad},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fe := s.CheckFit(tc.pod, tc.node)
			if tc.filter == "" {
				if fe != nil {
					t.Fatalf("unexpected %v", fe)
				}
				return
			}
			if fe == nil || fe.Filter != tc.filter || (tc.reason != "" && fe.Reason != tc.reason) || fe.Node != tc.node {
				t.Fatalf("fit error %v, want %s %q", fe, tc.filter, tc.reason)
			}
			if !IsFilter(fe, tc.filter) {
				t.Fatal("IsFilter disagrees")
			}
		})
	}
}

func TestFilterSchedulableSpreadsAGroup(t *testing.T) {
	s := NewSnapshot()
	for _, z := range []string{"a", "b", "c"} {
		mustAddNode(t, s, fixture.Node("n-"+z, fixture.WithZone(z)))
	}
	pods := replicas("web", 7, zonalSpread("web"))
	res := FilterSchedulable(s, pods, FilterOptions{})
	perZone := map[string]int{}
	for _, p := range res.Placements {
		perZone[p.NodeName]++
	}
	lo, hi := 7, 0
	for _, n := range perZone {
		lo, hi = min(lo, n), max(hi, n)
	}
	if len(res.Placements) != 7 || len(perZone) != 3 || hi-lo > 1 {
		t.Fatalf("placements per node %v", perZone)
	}
}

func TestFilterSchedulableAntiAffinityWithinGroup(t *testing.T) {
	s := NewSnapshot()
	mustAddNode(t, s, fixture.Node("n1"))
	mustAddNode(t, s, fixture.Node("n2"))
	pods := replicas("web", 3, antiAffinity(corev1.LabelHostname, "web"))
	res := FilterSchedulable(s, pods, FilterOptions{})
	if len(res.Placements) != 2 || res.Placements[0].NodeName == res.Placements[1].NodeName || len(res.Remaining) != 1 {
		t.Fatalf("placements %+v remaining %d", res.Placements, len(res.Remaining))
	}
}

func TestSpreadTimeout(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	s := NewSnapshot()
	mustAddNode(t, s, fixture.Node("n-a", fixture.WithZone("a")))
	mustAddNode(t, s, fixture.Node("n-b", fixture.WithZone("b"), fixture.WithCapacity(corev1.ResourceCPU, "50m")))
	mustAddPod(t, s, fixture.Pod("web-0", fixture.OnNode("n-a"), fixture.WithLabels(map[string]string{"app": "web"})))
	pod := func(age time.Duration, timeout string) *corev1.Pod {
		return fixture.Pod("web-1", zonalSpread("web"), fixture.WithLabels(map[string]string{"app": "web"}),
			fixture.WithCreationTime(metav1.NewTime(now.Add(-age))),
			fixture.WithAnnotations(map[string]string{SpreadTimeoutAnnotation: timeout}))
	}
	cases := []struct {
		name string
		pod  *corev1.Pod
		fits bool
	}{
		{name: "not yet expired", pod: pod(5*time.Minute, "7m")},
		{name: "expired", pod: pod(8*time.Minute, "7m"), fits: true},
		{name: "malformed annotation keeps the constraint", pod: pod(8*time.Minute, "soon")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s.Fork()
			defer s.Revert()
			res := FilterSchedulable(s, []*corev1.Pod{tc.pod}, FilterOptions{Now: now})
			if got := len(res.Placements) == 1; got != tc.fits {
				t.Fatalf("placed = %v, want %v", got, tc.fits)
			}
			if fe := s.CheckFitAt(tc.pod, "n-a", now); (fe == nil) != tc.fits {
				t.Fatalf("CheckFitAt = %v", fe)
			}
		})
	}
}

func TestIndexesSurviveRevert(t *testing.T) {
	s := NewSnapshot()
	mustAddNode(t, s, fixture.Node("n1"))
	mustAddNode(t, s, fixture.Node("n2"))
	mustAddPod(t, s, fixture.Pod("loner", fixture.OnNode("n1"), antiAffinity(corev1.LabelHostname, "web")))
	web := fixture.Pod("web", fixture.WithLabels(map[string]string{"app": "web"}))
	if fe := s.CheckFit(web, "n1"); fe == nil { // builds the indexes
		t.Fatal("anti-affinity ignored")
	}
	s.Fork()
	if err := s.RemovePod("default", "loner"); err != nil {
		t.Fatal(err)
	}
	mustAddPod(t, s, fixture.Pod("loner2", fixture.OnNode("n2"), antiAffinity(corev1.LabelHostname, "web")))
	if s.CheckFit(web, "n1") != nil || s.CheckFit(web, "n2") == nil {
		t.Fatal("indexes not updated inside the fork")
	}
	s.Revert()
	if s.CheckFit(web, "n1") == nil || s.CheckFit(web, "n2") != nil {
		t.Fatal("indexes not restored by revert")
	}
}
