package conformance

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/fixture"
)

func nodeCases() []Case {
	dedicated := fixture.Taint("dedicated", "gpu", corev1.TaintEffectNoSchedule)
	return []Case{
		{
			Name:  "cordoned node",
			Nodes: []*corev1.Node{node("n1", "", fixture.Unschedulable()), node("n2", "")},
			Pod:   fixture.Pod("in"),
			Want:  "n2", WantFilter: fCordon,
		},
		{
			Name:     "cordoned node tolerated",
			Nodes:    []*corev1.Node{node("n1", "", fixture.Unschedulable()), node("n2", "")},
			Existing: []*corev1.Pod{fill("n2")},
			Pod: fixture.Pod("in", fixture.WithTolerations(
				toleration(corev1.TaintNodeUnschedulable, corev1.TaintEffectNoSchedule))),
			Want: "n1", WantFilter: fResources,
		},
		{
			Name:  "NoSchedule taint",
			Nodes: []*corev1.Node{node("n1", "", fixture.WithTaints(dedicated)), node("n2", "")},
			Pod:   fixture.Pod("in"),
			Want:  "n2", WantFilter: fTaint,
		},
		{
			Name:     "NoSchedule taint tolerated",
			Nodes:    []*corev1.Node{node("n1", "", fixture.WithTaints(dedicated)), node("n2", "")},
			Existing: []*corev1.Pod{fill("n2")},
			Pod: fixture.Pod("in", fixture.WithTolerations(corev1.Toleration{
				Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "gpu", Effect: corev1.TaintEffectNoSchedule,
			})),
			Want: "n1", WantFilter: fResources,
		},
		{
			Name: "NoExecute taint",
			Nodes: []*corev1.Node{
				node("n1", "", fixture.WithTaints(fixture.Taint("maintenance", "", corev1.TaintEffectNoExecute))), node("n2", ""),
			},
			Pod:  fixture.Pod("in", fixture.WithTolerations(toleration("maintenance", corev1.TaintEffectNoSchedule))),
			Want: "n2", WantFilter: fTaint,
		},
		{
			Name: "PreferNoSchedule does not block",
			Nodes: []*corev1.Node{
				node("n1", "", fixture.WithTaints(fixture.Taint("soft", "x", corev1.TaintEffectPreferNoSchedule))), node("n2", ""),
			},
			Existing: []*corev1.Pod{fill("n2")},
			Pod:      fixture.Pod("in"),
			Want:     "n1", WantFilter: fResources,
		},
		{
			Name:  "nodeSelector",
			Nodes: []*corev1.Node{node("n1", ""), node("n2", "", fixture.WithNodeLabels(labels("disk", "ssd")))},
			Pod:   fixture.Pod("in", fixture.WithNodeSelector(labels("disk", "ssd"))),
			Want:  "n2", WantFilter: fAffinity,
		},
		{
			Name: "required node affinity: terms are ORed, expressions ANDed",
			Nodes: []*corev1.Node{
				node("n1", "", fixture.WithNodeLabels(labels("tier", "a"))),
				node("n2", "", fixture.WithNodeLabels(labels("tier", "b", "gen", "2"))),
				node("n3", "", fixture.WithNodeLabels(labels("tier", "b", "gen", "1"))),
			},
			Pod: fixture.Pod("in", nodeAffinity(in("tier", "c"), corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{
				{Key: "tier", Operator: corev1.NodeSelectorOpIn, Values: []string{"b"}},
				{Key: "gen", Operator: corev1.NodeSelectorOpGt, Values: []string{"1"}},
			}})),
			Want: "n2", WantFilter: fAffinity,
		},
		{
			Name:  "node affinity matchFields metadata.name",
			Nodes: nodes(3),
			Pod: fixture.Pod("in", nodeAffinity(corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{
				{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"n3"}},
			}})),
			Want: "n3", WantFilter: fAffinity,
		},
		{
			Name:     "host port in use",
			Nodes:    nodes(2),
			Existing: []*corev1.Pod{bound("web", "n1", withPort(8080, corev1.ProtocolTCP, ""))},
			Pod:      fixture.Pod("in", withPort(8080, corev1.ProtocolTCP, "")),
			Want:     "n2", WantFilter: fPorts,
		},
		{
			Name:     "host port on another protocol is free",
			Nodes:    nodes(2),
			Existing: []*corev1.Pod{bound("dns", "n1", withPort(53, corev1.ProtocolUDP, "")), fill("n2")},
			Pod:      fixture.Pod("in", withPort(53, corev1.ProtocolTCP, "")),
			Want:     "n1", WantFilter: fResources,
		},
		{
			Name:     "host port on a specific IP conflicts with 0.0.0.0",
			Nodes:    nodes(2),
			Existing: []*corev1.Pod{bound("web", "n1", withPort(9090, corev1.ProtocolTCP, "10.0.0.1"))},
			Pod:      fixture.Pod("in", withPort(9090, corev1.ProtocolTCP, "")),
			Want:     "n2", WantFilter: fPorts,
		},
		{
			Name:     "sidecar host port in use",
			Nodes:    nodes(2),
			Existing: []*corev1.Pod{bound("agent", "n2", withSidecarPort(9100))},
			Pod:      fixture.Pod("in", withPort(9100, corev1.ProtocolTCP, "")),
			Want:     "n1", WantFilter: fPorts,
		},
		{
			Name: "node affinity NotIn and DoesNotExist",
			Nodes: []*corev1.Node{
				node("n1", "", fixture.WithNodeLabels(labels("pool", "spot"))),
				node("n2", "", fixture.WithNodeLabels(labels("pool", "ondemand", "legacy", "true"))),
				node("n3", "", fixture.WithNodeLabels(labels("pool", "ondemand"))),
			},
			Pod: fixture.Pod("in", nodeAffinity(corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{
				{Key: "pool", Operator: corev1.NodeSelectorOpNotIn, Values: []string{"spot"}},
				{Key: "legacy", Operator: corev1.NodeSelectorOpDoesNotExist},
			}})),
			Want: "n3", WantFilter: fAffinity,
		},
		{
			Name:     "host ports on different IPs do not conflict",
			Nodes:    nodes(2),
			Existing: []*corev1.Pod{bound("web", "n1", withPort(9090, corev1.ProtocolTCP, "10.0.0.1")), fill("n2")},
			Pod:      fixture.Pod("in", withPort(9090, corev1.ProtocolTCP, "10.0.0.2")),
			Want:     "n1", WantFilter: fResources,
		},
	}
}

func withSidecarPort(port int32) fixture.PodOption {
	return func(p *corev1.Pod) {
		always := corev1.ContainerRestartPolicyAlways
		p.Spec.InitContainers = append(p.Spec.InitContainers, corev1.Container{
			Name: "exporter", Image: fixture.PauseImage, RestartPolicy: &always,
			Ports: []corev1.ContainerPort{{ContainerPort: port, HostPort: port, Protocol: corev1.ProtocolTCP}},
		})
	}
}
