package spreademulation

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/fixture"
)

var now = time.Date(2020, 1, 1, 1, 0, 0, 0, time.UTC)

func tsc(label, value string) corev1.TopologySpreadConstraint {
	return corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: ZoneLabel, WhenUnsatisfiable: corev1.DoNotSchedule,
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{label: value}}}
}

func spreadPod(name, node string, opts ...fixture.PodOption) *corev1.Pod {
	o := append([]fixture.PodOption{fixture.WithLabels(map[string]string{"tsc-group": "rs"}), fixture.WithTopologySpread(tsc("tsc-group", "rs")),
		fixture.WithCreationTime(metav1.NewTime(now.Add(-time.Minute)))}, opts...)
	if node != "" {
		o = append(o, fixture.OnNode(node))
	}
	return fixture.Pod(name, o...)
}

func TestQualifies(t *testing.T) {
	other := tsc("tsc-group", "rs")
	other.MaxSkew = 2
	tests := []struct {
		name string
		pod  *corev1.Pod
		want bool
	}{
		{"emulated shape", spreadPod("p", ""), true},
		{"two constraints", spreadPod("p", "", fixture.WithTopologySpread(tsc("tsc-group", "rs"))), false},
		{"skew 2", fixture.Pod("p", fixture.WithLabels(map[string]string{"tsc-group": "rs"}), fixture.WithTopologySpread(other)), false},
		{"other label", fixture.Pod("p", fixture.WithLabels(map[string]string{"app": "rs"}), fixture.WithTopologySpread(tsc("app", "rs"))), false},
		{"value differs from the pod's", fixture.Pod("p", fixture.WithLabels(map[string]string{"tsc-group": "x"}), fixture.WithTopologySpread(tsc("tsc-group", "rs"))), false},
		{"nil selector", fixture.Pod("p", fixture.WithTopologySpread(corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: ZoneLabel, WhenUnsatisfiable: corev1.DoNotSchedule})), false},
		{"no constraint", fixture.Pod("p"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Qualifies(tt.pod, "tsc-group"); got != tt.want {
				t.Fatalf("got %v", got)
			}
		})
	}
}

func TestEmulateRoundRobin(t *testing.T) {
	nodes := []*corev1.Node{fixture.Node("a1", fixture.WithZone("a")), fixture.Node("b1", fixture.WithZone("b")), fixture.Node("c1", fixture.WithZone("c"))}
	scheduled := []*corev1.Pod{spreadPod("s1", "a1"), spreadPod("s2", "a1"), spreadPod("s3", "b1")}
	pending := []*corev1.Pod{spreadPod("p1", ""), spreadPod("p2", ""), spreadPod("p3", ""), spreadPod("p4", ""),
		spreadPod("expired", "", fixture.WithAnnotations(map[string]string{TimeoutAnnotation: "30s"})),
		spreadPod("waiting", "", fixture.WithAnnotations(map[string]string{TimeoutAnnotation: "13m5s"}))}
	res := Emulate(Options{Label: "tsc-group", PinScheduled: true}, nodes, pending, scheduled, now)
	want := []string{"c", "b", "c", "a", "", "b"}
	for i, p := range res.Pending {
		if got := p.Spec.NodeSelector[ZoneLabel]; got != want[i] || p.Spec.TopologySpreadConstraints != nil {
			t.Errorf("%s pinned to %q (tsc %v), want %q", p.Name, got, p.Spec.TopologySpreadConstraints, want[i])
		}
	}
	if res.Scheduled[0].Spec.NodeSelector[ZoneLabel] != "a" || pending[0].Spec.TopologySpreadConstraints == nil {
		t.Fatal("scheduled pods not pinned, or the input was modified")
	}
	if off := Emulate(Options{}, nodes, pending, scheduled, now); off.Emulated != 0 || off.Pending[0] != pending[0] {
		t.Fatal("empty label must disable the emulation")
	}
}

func TestEmulateCountsOnlyThePendingGroups(t *testing.T) {
	nodes := []*corev1.Node{fixture.Node("a1", fixture.WithZone("a")), fixture.Node("b1", fixture.WithZone("b"))}
	other := func(name, node string) *corev1.Pod {
		return fixture.Pod(name, fixture.OnNode(node), fixture.WithLabels(map[string]string{"tsc-group": "other"}),
			fixture.WithTopologySpread(tsc("tsc-group", "other")))
	}
	// Zone a holds one pod of the pending pod's group, zone b many of
	// another group: the pending pod goes to b.
	scheduled := []*corev1.Pod{spreadPod("s1", "a1"), other("o1", "b1"), other("o2", "b1"), other("o3", "b1")}
	tests := []struct {
		name     string
		pending  []*corev1.Pod
		emulated int
		zone     string
	}{
		{"pending pod of the group", []*corev1.Pod{spreadPod("p1", "")}, 1, "b"},
		{"nothing qualifies", []*corev1.Pod{fixture.Pod("plain")}, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := Emulate(Options{Label: "tsc-group"}, nodes, tc.pending, scheduled, now)
			if res.Emulated != tc.emulated || len(res.Pending) != len(tc.pending) {
				t.Fatalf("emulated %d of %d pods, want %d", res.Emulated, len(res.Pending), tc.emulated)
			}
			if got := res.Pending[0].Spec.NodeSelector[ZoneLabel]; got != tc.zone {
				t.Errorf("pinned to %q, want %q", got, tc.zone)
			}
			if len(res.Scheduled) != len(scheduled) || res.Scheduled[1] != scheduled[1] || res.Scheduled[1].Spec.NodeSelector != nil {
				t.Error("scheduled pods must pass unchanged without PinScheduled")
			}
			if tc.emulated == 0 && res.Pending[0] != tc.pending[0] {
				t.Error("a pod that does not qualify must pass unchanged")
			}
		})
	}
}
