package conformance

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/fixture"
)

// web returns a bound pod labelled app=web plus extra labels.
func web(name, nodeName string, kv ...string) *corev1.Pod {
	return bound(name, nodeName, fixture.WithLabels(labels(append([]string{"app", "web"}, kv...)...)))
}

func incomingWeb(c ...corev1.TopologySpreadConstraint) *corev1.Pod {
	return fixture.Pod("in", fixture.WithLabels(labels("app", "web")), fixture.WithTopologySpread(c...))
}

func threeZones() []*corev1.Node {
	return []*corev1.Node{node("a1", "a"), node("b1", "b"), node("c1", "c")}
}

func spreadCases() []Case {
	return []Case{
		{
			Name:     "zone spread goes to the emptiest zone",
			Nodes:    threeZones(),
			Existing: []*corev1.Pod{web("w0", "a1"), web("w1", "a1"), web("w2", "b1")},
			Pod:      incomingWeb(spread(1, zoneKey, "app", "web")),
			Want:     "c1", WantFilter: fSpread,
		},
		{
			Name:     "maxSkew 2 admits a second domain",
			Nodes:    threeZones(),
			Existing: []*corev1.Pod{web("w0", "a1"), web("w1", "a1"), web("w2", "b1"), fill("c1")},
			Pod:      incomingWeb(spread(2, zoneKey, "app", "web")),
			Want:     "b1", WantFilter: fSpread,
		},
		{
			Name:     "node without the topology label is not a candidate",
			Nodes:    []*corev1.Node{node("a1", "a"), node("n2", "")},
			Existing: []*corev1.Pod{},
			Pod:      incomingWeb(spread(1, zoneKey, "app", "web")),
			Want:     "a1", WantFilter: fSpread,
		},
		{
			Name:       "pods of other namespaces do not count",
			Nodes:      []*corev1.Node{node("a1", "a"), node("b1", "b")},
			Namespaces: []*corev1.Namespace{namespace("conf-spread-e")},
			Existing: []*corev1.Pod{
				web("w0", "a1"),
				bound("w1", "b1", fixture.InNamespace("conf-spread-e"), fixture.WithLabels(labels("app", "web"))),
			},
			Pod:  incomingWeb(spread(1, zoneKey, "app", "web")),
			Want: "b1", WantFilter: fSpread,
		},
		{
			Name:     "a pod outside its own selector adds no skew",
			Nodes:    []*corev1.Node{node("a1", "a"), node("b1", "b")},
			Existing: []*corev1.Pod{web("w0", "a1"), fill("b1")},
			Pod:      fixture.Pod("in", fixture.WithLabels(labels("app", "other")), fixture.WithTopologySpread(spread(1, zoneKey, "app", "web"))),
			Want:     "a1", WantFilter: fResources,
		},
		{
			Name:     "minDomains above the domain count makes the minimum zero",
			Nodes:    nodes(2),
			Existing: []*corev1.Pod{web("w0", "n1"), web("w1", "n2")},
			Pod:      incomingWeb(withMinDomains(spread(1, hostnameKey, "app", "web"), 3)),
			Want:     "", WantFilter: fSpread,
		},
		{
			Name:     "minDomains met",
			Nodes:    nodes(3),
			Existing: []*corev1.Pod{web("w0", "n1"), web("w1", "n2"), web("w2", "n3"), fill("n2"), fill("n3")},
			Pod:      incomingWeb(withMinDomains(spread(1, hostnameKey, "app", "web"), 3)),
			Want:     "n1", WantFilter: fResources,
		},
		{
			Name:     "nodeAffinityPolicy Honor ignores domains the pod cannot use",
			Nodes:    threeZones(),
			Existing: []*corev1.Pod{web("w0", "a1"), web("w1", "b1"), fill("b1")},
			Pod: fixture.Pod("in", fixture.WithLabels(labels("app", "web")), nodeAffinity(in(zoneKey, "a", "b")),
				fixture.WithTopologySpread(spread(1, zoneKey, "app", "web"))),
			Want: "a1", WantFilter: fResources,
		},
		{
			Name:     "nodeAffinityPolicy Ignore counts every domain",
			Nodes:    threeZones(),
			Existing: []*corev1.Pod{web("w0", "a1"), web("w1", "b1"), fill("b1")},
			Pod: fixture.Pod("in", fixture.WithLabels(labels("app", "web")), nodeAffinity(in(zoneKey, "a", "b")),
				fixture.WithTopologySpread(withPolicies(spread(1, zoneKey, "app", "web"), corev1.NodeInclusionPolicyIgnore, ""))),
			Want: "", WantFilter: fSpread,
		},
		{
			Name: "nodeTaintsPolicy Ignore (default) counts tainted domains",
			Nodes: []*corev1.Node{node("a1", "a"), node("b1", "b"),
				node("c1", "c", fixture.WithTaints(fixture.Taint("dedicated", "x", corev1.TaintEffectNoSchedule)))},
			Existing: []*corev1.Pod{web("w0", "a1"), web("w1", "b1"), fill("b1")},
			Pod:      incomingWeb(spread(1, zoneKey, "app", "web")),
			Want:     "", WantFilter: fSpread,
		},
		{
			Name: "nodeTaintsPolicy Honor skips tainted domains",
			Nodes: []*corev1.Node{node("a1", "a"), node("b1", "b"),
				node("c1", "c", fixture.WithTaints(fixture.Taint("dedicated", "x", corev1.TaintEffectNoSchedule)))},
			Existing: []*corev1.Pod{web("w0", "a1"), web("w1", "b1"), fill("b1")},
			Pod:      incomingWeb(withPolicies(spread(1, zoneKey, "app", "web"), "", corev1.NodeInclusionPolicyHonor)),
			Want:     "a1", WantFilter: fResources,
		},
		{
			Name:     "matchLabelKeys counts only the pod's own revision",
			Nodes:    []*corev1.Node{node("a1", "a"), node("b1", "b")},
			Existing: []*corev1.Pod{web("old0", "a1", "rev", "old"), web("old1", "a1", "rev", "old"), web("new0", "b1", "rev", "new")},
			Pod: fixture.Pod("in", fixture.WithLabels(labels("app", "web", "rev", "new")),
				fixture.WithTopologySpread(withMatchLabelKeys(spread(1, zoneKey, "app", "web"), "rev"))),
			Want: "a1", WantFilter: fSpread,
		},
		{
			Name:     "without matchLabelKeys every revision counts",
			Nodes:    []*corev1.Node{node("a1", "a"), node("b1", "b")},
			Existing: []*corev1.Pod{web("old0", "a1", "rev", "old"), web("old1", "a1", "rev", "old"), web("new0", "b1", "rev", "new")},
			Pod: fixture.Pod("in", fixture.WithLabels(labels("app", "web", "rev", "new")),
				fixture.WithTopologySpread(spread(1, zoneKey, "app", "web"))),
			Want: "b1", WantFilter: fSpread,
		},
		{
			Name:     "two constraints: zone and hostname",
			Nodes:    []*corev1.Node{node("a1", "a"), node("a2", "a"), node("b1", "b"), node("b2", "b")},
			Existing: []*corev1.Pod{web("w0", "a1"), web("w1", "b1"), web("w2", "b2")},
			Pod:      incomingWeb(spread(1, zoneKey, "app", "web"), spread(1, hostnameKey, "app", "web")),
			Want:     "a2", WantFilter: fSpread,
		},
		{
			Name:     "terminating pods do not count",
			Nodes:    []*corev1.Node{node("a1", "a"), node("b1", "b")},
			Existing: []*corev1.Pod{web("w0", "a1"), terminating(web("w1", "a1")), web("w2", "b1"), fill("b1")},
			Pod:      incomingWeb(spread(1, zoneKey, "app", "web")),
			Want:     "a1", WantFilter: fResources,
		},
	}
}

// terminating marks a bound pod as being deleted; the scheduler runner
// creates it and then deletes it, which leaves it terminating without a kubelet.
func terminating(p *corev1.Pod) *corev1.Pod {
	now := metav1.Now()
	p.DeletionTimestamp = &now
	return p
}

func withMinDomains(c corev1.TopologySpreadConstraint, n int32) corev1.TopologySpreadConstraint {
	c.MinDomains = &n
	return c
}

func withPolicies(c corev1.TopologySpreadConstraint, affinity, taints corev1.NodeInclusionPolicy) corev1.TopologySpreadConstraint {
	if affinity != "" {
		c.NodeAffinityPolicy = &affinity
	}
	if taints != "" {
		c.NodeTaintsPolicy = &taints
	}
	return c
}

func withMatchLabelKeys(c corev1.TopologySpreadConstraint, keys ...string) corev1.TopologySpreadConstraint {
	c.MatchLabelKeys = keys
	return c
}
