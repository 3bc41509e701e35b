package conformance

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/fixture"
)

func interPodCases() []Case {
	zoned := func() []*corev1.Node {
		return []*corev1.Node{node("a1", "a"), node("a2", "a"), node("b1", "b")}
	}
	return []Case{
		{
			Name:     "affinity by hostname",
			Nodes:    nodes(3),
			Existing: []*corev1.Pod{bound("db", "n2", fixture.WithLabels(labels("app", "db")))},
			Pod:      fixture.Pod("in", podAffinity(term(hostnameKey, "app", "db"))),
			Want:     "n2", WantFilter: fInterPod,
		},
		{
			Name:     "affinity by zone",
			Nodes:    zoned(),
			Existing: []*corev1.Pod{bound("db", "a1", fixture.WithLabels(labels("app", "db"))), fill("a1")},
			Pod:      fixture.Pod("in", podAffinity(term(zoneKey, "app", "db"))),
			Want:     "a2", WantFilter: fInterPod,
		},
		{
			Name:     "affinity needs the topology label on the node",
			Nodes:    []*corev1.Node{node("a1", "a"), node("n2", "")},
			Existing: []*corev1.Pod{bound("db", "a1", fixture.WithLabels(labels("app", "db"))), fill("a1")},
			Pod:      fixture.Pod("in", podAffinity(term(zoneKey, "app", "db"))),
			Want:     "", WantFilter: fInterPod,
		},
		{
			Name:  "affinity: all terms must be matched by the same pods",
			Nodes: nodes(2),
			Existing: []*corev1.Pod{
				bound("db", "n1", fixture.WithLabels(labels("app", "db"))),
				bound("cache", "n1", fixture.WithLabels(labels("app", "cache"))),
				bound("both", "n2", fixture.WithLabels(labels("app", "db", "tier", "cache"))),
			},
			Pod:  fixture.Pod("in", podAffinity(term(hostnameKey, "app", "db"), term(hostnameKey, "tier", "cache"))),
			Want: "n2", WantFilter: fInterPod,
		},
		{
			Name:     "self-affinity lets the first pod in",
			Nodes:    nodes(2),
			Existing: []*corev1.Pod{fill("n1")},
			Pod:      fixture.Pod("in", fixture.WithLabels(labels("app", "web")), podAffinity(term(zoneKey, "app", "web"))),
			Want:     "", WantFilter: fInterPod,
		},
		{
			Name:     "self-affinity first pod on a zoned node",
			Nodes:    []*corev1.Node{node("a1", "a"), node("b1", "b")},
			Existing: []*corev1.Pod{fill("a1")},
			Pod:      fixture.Pod("in", fixture.WithLabels(labels("app", "web")), podAffinity(term(zoneKey, "app", "web"))),
			Want:     "b1", WantFilter: fResources,
		},
		{
			Name:  "affinity to pods that do not exist",
			Nodes: nodes(2),
			Pod:   fixture.Pod("in", podAffinity(term(hostnameKey, "app", "ghost"))),
			Want:  "", WantFilter: fInterPod,
		},
		{
			Name:     "anti-affinity by hostname",
			Nodes:    nodes(2),
			Existing: []*corev1.Pod{bound("web-0", "n1", fixture.WithLabels(labels("app", "web")))},
			Pod:      fixture.Pod("in", fixture.WithLabels(labels("app", "web")), podAntiAffinity(term(hostnameKey, "app", "web"))),
			Want:     "n2", WantFilter: fInterPod,
		},
		{
			Name:     "anti-affinity by zone",
			Nodes:    zoned(),
			Existing: []*corev1.Pod{bound("web-0", "a2", fixture.WithLabels(labels("app", "web")))},
			Pod:      fixture.Pod("in", fixture.WithLabels(labels("app", "web")), podAntiAffinity(term(zoneKey, "app", "web"))),
			Want:     "b1", WantFilter: fInterPod,
		},
		{
			Name:  "existing pod's anti-affinity repels the incoming pod",
			Nodes: nodes(2),
			Existing: []*corev1.Pod{bound("loner", "n1", fixture.WithLabels(labels("app", "loner")),
				podAntiAffinity(term(hostnameKey, "app", "web")))},
			Pod:  fixture.Pod("in", fixture.WithLabels(labels("app", "web"))),
			Want: "n2", WantFilter: fInterPod,
		},
		{
			Name:  "existing pod's zonal anti-affinity",
			Nodes: zoned(),
			Existing: []*corev1.Pod{bound("loner", "a1", fixture.WithLabels(labels("app", "loner")),
				podAntiAffinity(term(zoneKey, "app", "web")))},
			Pod:  fixture.Pod("in", fixture.WithLabels(labels("app", "web"))),
			Want: "b1", WantFilter: fInterPod,
		},
		{
			Name:       "existing pod's anti-affinity in another namespace only covers its own namespace",
			Nodes:      nodes(2),
			Namespaces: []*corev1.Namespace{namespace("conf-other-a")},
			Existing: []*corev1.Pod{
				bound("loner", "n1", fixture.InNamespace("conf-other-a"), podAntiAffinity(term(hostnameKey, "app", "web"))),
				fill("n2"),
			},
			Pod:  fixture.Pod("in", fixture.WithLabels(labels("app", "web"))),
			Want: "n1", WantFilter: fResources,
		},
		{
			Name:       "existing pod's anti-affinity with a namespaceSelector",
			Nodes:      nodes(2),
			Namespaces: []*corev1.Namespace{namespace("conf-other-b"), namespace("conf-team-b", "team", "b")},
			Existing: []*corev1.Pod{bound("loner", "n1", fixture.InNamespace("conf-other-b"),
				podAntiAffinity(withNamespaceSelector(term(hostnameKey, "app", "web"), "team", "b")))},
			Pod:  fixture.Pod("in", fixture.InNamespace("conf-team-b"), fixture.WithLabels(labels("app", "web"))),
			Want: "n2", WantFilter: fInterPod,
		},
		{
			Name:       "affinity with a namespaceSelector",
			Nodes:      nodes(3),
			Namespaces: []*corev1.Namespace{namespace("conf-team-x", "team", "x"), namespace("conf-team-y", "team", "y")},
			Existing: []*corev1.Pod{
				bound("db-x", "n1", fixture.InNamespace("conf-team-x"), fixture.WithLabels(labels("app", "db"))),
				bound("db-y", "n2", fixture.InNamespace("conf-team-y"), fixture.WithLabels(labels("app", "db"))),
			},
			Pod:  fixture.Pod("in", podAffinity(withNamespaceSelector(term(hostnameKey, "app", "db"), "team", "x"))),
			Want: "n1", WantFilter: fInterPod,
		},
		{
			Name:       "affinity with a namespace list",
			Nodes:      nodes(3),
			Namespaces: []*corev1.Namespace{namespace("conf-list-c")},
			Existing: []*corev1.Pod{
				bound("db-c", "n3", fixture.InNamespace("conf-list-c"), fixture.WithLabels(labels("app", "db"))),
				bound("db-own", "n1", fixture.WithLabels(labels("app", "db"))),
			},
			Pod:  fixture.Pod("in", podAffinity(withNamespaces(term(hostnameKey, "app", "db"), "conf-list-c"))),
			Want: "n3", WantFilter: fInterPod,
		},
		{
			Name:       "anti-affinity with an empty namespaceSelector covers all namespaces",
			Nodes:      nodes(2),
			Namespaces: []*corev1.Namespace{namespace("conf-any-d")},
			Existing:   []*corev1.Pod{bound("web-d", "n1", fixture.InNamespace("conf-any-d"), fixture.WithLabels(labels("app", "web")))},
			Pod:        fixture.Pod("in", podAntiAffinity(withNamespaceSelector(term(hostnameKey, "app", "web")))),
			Want:       "n2", WantFilter: fInterPod,
		},
	}
}

func withNamespaceSelector(t corev1.PodAffinityTerm, kv ...string) corev1.PodAffinityTerm {
	t.NamespaceSelector = &metav1.LabelSelector{MatchLabels: labels(kv...)}
	return t
}

func withNamespaces(t corev1.PodAffinityTerm, ns ...string) corev1.PodAffinityTerm {
	t.Namespaces = ns
	return t
}
