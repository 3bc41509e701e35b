package scheduling

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/fixture"
)

func TestZoneTopologies(t *testing.T) {
	pv := func(labels map[string]string) *corev1.PersistentVolume {
		return &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv", Labels: labels}}
	}
	node := func(labels map[string]string) *corev1.Node {
		n := fixture.Node("n")
		n.Labels = labels
		return n
	}
	zone, beta := corev1.LabelTopologyZone, corev1.LabelFailureDomainBetaZone
	cases := []struct {
		name string
		pv   map[string]string
		node map[string]string
		want bool
	}{
		{name: "no labels on the volume", node: map[string]string{zone: "a"}, want: true},
		{name: "same zone", pv: map[string]string{zone: "a"}, node: map[string]string{zone: "a"}, want: true},
		{name: "other zone", pv: map[string]string{zone: "a"}, node: map[string]string{zone: "b"}},
		{name: "node without zone labels matches", pv: map[string]string{zone: "a"}, node: map[string]string{"x": "y"}, want: true},
		{name: "node with only a region lacks the zone", pv: map[string]string{zone: "a"}, node: map[string]string{corev1.LabelTopologyRegion: "r"}},
		{name: "multi-zone value", pv: map[string]string{zone: "a__b"}, node: map[string]string{zone: "b"}, want: true},
		{name: "beta label on the volume, GA on the node", pv: map[string]string{beta: "a"}, node: map[string]string{zone: "a"}, want: true},
		{name: "a value with an empty zone is ignored", pv: map[string]string{zone: "a__"}, node: map[string]string{zone: "b"}, want: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := PVZoneTopologies(pv(tc.pv)).Match(node(tc.node)); got != tc.want {
				t.Fatalf("match = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestDiskConflict(t *testing.T) {
	gce := func(name string, ro bool) corev1.Volume {
		return corev1.Volume{VolumeSource: corev1.VolumeSource{GCEPersistentDisk: &corev1.GCEPersistentDiskVolumeSource{PDName: name, ReadOnly: ro}}}
	}
	iscsi := func(iqn string, ro bool) corev1.Volume {
		return corev1.Volume{VolumeSource: corev1.VolumeSource{ISCSI: &corev1.ISCSIVolumeSource{IQN: iqn, ReadOnly: ro}}}
	}
	rbd := func(mons []string, image string) corev1.Volume {
		return corev1.Volume{VolumeSource: corev1.VolumeSource{RBD: &corev1.RBDVolumeSource{CephMonitors: mons, RBDPool: "p", RBDImage: image}}}
	}
	cases := []struct {
		name     string
		v, other corev1.Volume
		want     bool
	}{
		{name: "same GCE disk", v: gce("d", false), other: gce("d", true), want: true},
		{name: "same GCE disk, both read-only", v: gce("d", true), other: gce("d", true)},
		{name: "other GCE disk", v: gce("d", false), other: gce("e", false)},
		{name: "same iSCSI target", v: iscsi("q", false), other: iscsi("q", false), want: true},
		{name: "same iSCSI target, both read-only", v: iscsi("q", true), other: iscsi("q", true)},
		{name: "RBD image on overlapping monitors", v: rbd([]string{"m1", "m2"}, "i"), other: rbd([]string{"m2"}, "i"), want: true},
		{name: "RBD image on other monitors", v: rbd([]string{"m1"}, "i"), other: rbd([]string{"m2"}, "i")},
		{name: "different kinds", v: gce("d", false), other: iscsi("d", false)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := DiskConflict(&tc.v, []corev1.Volume{tc.other}); got != tc.want {
				t.Fatalf("conflict = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestNodeMatcherNamedNodes(t *testing.T) {
	named := func(op corev1.NodeSelectorOperator, names ...string) corev1.NodeSelectorRequirement {
		return corev1.NodeSelectorRequirement{Key: metav1.ObjectNameField, Operator: op, Values: names}
	}
	in := corev1.NodeSelectorOpIn
	cases := []struct {
		name                 string
		terms                []corev1.NodeSelectorTerm
		restricted, conflict bool
		named                []string
	}{
		{name: "no names", terms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "a", Operator: corev1.NodeSelectorOpExists}}}}},
		{name: "one name", terms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{named(in, "n1")}}}, restricted: true, named: []string{"n1"}},
		{name: "union over terms", terms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{named(in, "n1")}},
			{MatchFields: []corev1.NodeSelectorRequirement{named(in, "n2")}}}, restricted: true, named: []string{"n1", "n2"}},
		{name: "a term without names frees every node", terms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{named(in, "n1")}},
			{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "a", Operator: corev1.NodeSelectorOpExists}}}}},
		{name: "NotIn does not restrict", terms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{named(corev1.NodeSelectorOpNotIn, "n1")}}}},
		{name: "intersection within a term is empty", terms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{
			named(in, "n1"), named(in, "n2")}}}, restricted: true, conflict: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := fixture.Pod("p", fixture.WithAffinity(&corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: tc.terms}}}))
			m := NewNodeMatcher(p)
			restricted, conflict := m.NamedNodes()
			if restricted != tc.restricted || conflict != tc.conflict {
				t.Fatalf("restricted, conflict = %v, %v; want %v, %v", restricted, conflict, tc.restricted, tc.conflict)
			}
			for _, n := range tc.named {
				if !m.Named(n) {
					t.Errorf("%s not named", n)
				}
			}
			if tc.restricted && m.Named("other") {
				t.Error("an unnamed node is named")
			}
		})
	}
}
