package scheduling

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kscale/kscale/internal/fixture"
)

func TestUntoleratedTaint(t *testing.T) {
	noSched := fixture.Taint("a", "x", corev1.TaintEffectNoSchedule)
	noExec := fixture.Taint("b", "", corev1.TaintEffectNoExecute)
	prefer := fixture.Taint("c", "", corev1.TaintEffectPreferNoSchedule)
	cases := []struct {
		name        string
		taints      []corev1.Taint
		tolerations []corev1.Toleration
		want        bool
	}{
		{name: "no taints", want: false},
		{name: "NoSchedule untolerated", taints: []corev1.Taint{noSched}, want: true},
		{name: "NoExecute untolerated", taints: []corev1.Taint{noExec}, want: true},
		{name: "PreferNoSchedule ignored", taints: []corev1.Taint{prefer}, want: false},
		{name: "Equal toleration", taints: []corev1.Taint{noSched},
			tolerations: []corev1.Toleration{{Key: "a", Operator: corev1.TolerationOpEqual, Value: "x", Effect: corev1.TaintEffectNoSchedule}}},
		{name: "wrong value", taints: []corev1.Taint{noSched},
			tolerations: []corev1.Toleration{{Key: "a", Operator: corev1.TolerationOpEqual, Value: "y"}}, want: true},
		{name: "Exists all", taints: []corev1.Taint{noSched, noExec}, tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}}},
		{name: "effect mismatch", taints: []corev1.Taint{noExec},
			tolerations: []corev1.Toleration{{Key: "b", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}, want: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, got := UntoleratedTaint(tc.taints, tc.tolerations); got != tc.want {
				t.Fatalf("untolerated = %v, want %v", got, tc.want)
			}
		})
	}
	if ToleratesUnschedulable(nil) {
		t.Fatal("no tolerations tolerate cordon")
	}
}

func TestHostPortConflicts(t *testing.T) {
	tcp := func(ip string, port int32) HostPort {
		return HostPort{IP: ip, Protocol: corev1.ProtocolTCP, Port: port}
	}
	cases := []struct {
		name string
		a, b HostPort
		want bool
	}{
		{name: "same", a: tcp("0.0.0.0", 80), b: tcp("0.0.0.0", 80), want: true},
		{name: "wildcard vs ip", a: tcp("0.0.0.0", 80), b: tcp("10.0.0.1", 80), want: true},
		{name: "different ips", a: tcp("10.0.0.2", 80), b: tcp("10.0.0.1", 80)},
		{name: "different ports", a: tcp("0.0.0.0", 80), b: tcp("0.0.0.0", 81)},
		{name: "different protocols", a: tcp("0.0.0.0", 53), b: HostPort{IP: "0.0.0.0", Protocol: corev1.ProtocolUDP, Port: 53}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.a.Conflicts(tc.b); got != tc.want {
				t.Fatalf("conflicts = %v", got)
			}
		})
	}
	p := fixture.Pod("p", fixture.WithHostPort(8080, ""), fixture.WithInitContainer("sidecar", true), fixture.WithInitContainer("init", false))
	p.Spec.InitContainers[0].Ports = []corev1.ContainerPort{{ContainerPort: 9, HostPort: 9}}
	p.Spec.InitContainers[1].Ports = []corev1.ContainerPort{{ContainerPort: 10, HostPort: 10}}
	got := PodHostPorts(p)
	if len(got) != 2 || got[0].Port != 9 || got[1] != tcp("0.0.0.0", 8080) {
		t.Fatalf("host ports = %+v", got)
	}
}

func TestAffinityTermMatches(t *testing.T) {
	owner := fixture.Pod("owner", fixture.InNamespace("home"))
	nsLabels := func(ns string) (labels.Set, bool) {
		m := map[string]labels.Set{"team-a": {"team": "a"}, "home": {}}
		l, ok := m[ns]
		return l, ok
	}
	term := func(namespaces []string, nsSel *metav1.LabelSelector) AffinityTerm {
		terms, err := parseTerms(owner, []corev1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, TopologyKey: "zone",
			Namespaces: namespaces, NamespaceSelector: nsSel,
		}})
		if err != nil {
			t.Fatal(err)
		}
		return terms[0]
	}
	db := func(ns string) *corev1.Pod {
		return fixture.Pod("db", fixture.InNamespace(ns), fixture.WithLabels(map[string]string{"app": "db"}))
	}
	cases := []struct {
		name string
		term AffinityTerm
		pod  *corev1.Pod
		want bool
	}{
		{name: "own namespace by default", term: term(nil, nil), pod: db("home"), want: true},
		{name: "other namespace excluded", term: term(nil, nil), pod: db("team-a")},
		{name: "namespace list", term: term([]string{"team-a"}, nil), pod: db("team-a"), want: true},
		{name: "namespace list excludes own", term: term([]string{"team-a"}, nil), pod: db("home")},
		{name: "namespace selector", term: term(nil, &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}}), pod: db("team-a"), want: true},
		{name: "empty namespace selector selects all", term: term(nil, &metav1.LabelSelector{}), pod: db("elsewhere"), want: true},
		{name: "unknown namespace is never selected", term: term(nil, &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "team", Operator: metav1.LabelSelectorOpDoesNotExist}}}), pod: db("unregistered"), want: false},
		{name: "label mismatch", term: term(nil, nil), pod: fixture.Pod("web", fixture.InNamespace("home")), want: false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.term.Matches(tc.pod, nsLabels); got != tc.want {
				t.Fatalf("matches = %v, want %v", got, tc.want)
			}
			incoming := tc.want || tc.name == "unknown namespace is never selected"
			if got := tc.term.SelectsIncoming(tc.pod, nsLabels, false); got != incoming {
				t.Fatalf("selects incoming = %v, want %v (a bound pod's term sees an unknown namespace as unlabelled)", got, incoming)
			}
			if tc.term.IndexKey != "app" || tc.term.IndexValue != "db" || !tc.term.IndexOnly {
				t.Fatalf("index label = %+v", tc.term)
			}
		})
	}
}

func TestSpreadConstraintParsing(t *testing.T) {
	honor, ignore := corev1.NodeInclusionPolicyHonor, corev1.NodeInclusionPolicyIgnore
	pod := fixture.Pod("p", fixture.WithLabels(map[string]string{"app": "web", "rev": "2"}), fixture.WithTopologySpread(
		corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, MatchLabelKeys: []string{"rev", "absent"},
			NodeAffinityPolicy: &ignore, NodeTaintsPolicy: &honor},
		corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "host", WhenUnsatisfiable: corev1.ScheduleAnyway},
	))
	cs, err := HardSpreadConstraints(pod)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 {
		t.Fatalf("constraints = %d, want only the DoNotSchedule one", len(cs))
	}
	c := cs[0]
	if c.HonorNodeAffinity || !c.HonorNodeTaints || c.MinDomains != 1 || c.IndexOnly {
		t.Fatalf("constraint = %+v", c)
	}
	same := fixture.Pod("a", fixture.WithLabels(map[string]string{"app": "web", "rev": "2"}))
	old := fixture.Pod("b", fixture.WithLabels(map[string]string{"app": "web", "rev": "1"}))
	if !c.CountsPod("default", same) || c.CountsPod("default", old) || c.CountsPod("other", same) {
		t.Fatal("matchLabelKeys not merged into the selector")
	}
}

func TestDomainCounts(t *testing.T) {
	c := SpreadConstraint{MaxSkew: 1, MinDomains: 3}
	d := NewDomainCounts()
	if d.Min() < 1<<30 {
		t.Fatalf("min of no domains = %d", d.Min())
	}
	d.Add("a", 2)
	d.Add("b", 1)
	if d.Min() != 1 || d.Domains() != 2 {
		t.Fatalf("min %d domains %d", d.Min(), d.Domains())
	}
	// Two domains < minDomains 3: the minimum counts as 0.
	if c.Fits(d, "b", true) {
		t.Fatal("b fits despite minDomains")
	}
	d.AddDomain("c")
	if d.Min() != 0 || !c.Fits(d, "c", true) || c.Fits(d, "b", true) {
		t.Fatal("new empty domain not the minimum")
	}
	d.Add("c", 1)
	d.Add("c", 1)
	if d.Min() != 1 {
		t.Fatalf("min after c grew = %d", d.Min())
	}
	d.Add("b", -1)
	if d.Min() != 0 || d.Count("b") != 0 {
		t.Fatalf("min after b shrank = %d", d.Min())
	}
}
