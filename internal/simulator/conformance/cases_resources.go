package conformance

import (
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/fixture"
)

func resourceCases() []Case {
	return []Case{
		{
			Name:     "cpu: the busy node lacks room",
			Nodes:    nodes(2),
			Existing: []*corev1.Pod{bound("busy", "n1", fixture.WithRequests("cpu", "3500m"))},
			Pod:      fixture.Pod("in", fixture.WithRequests("cpu", "1")),
			Want:     "n2", WantFilter: fResources,
		},
		{
			Name:     "memory: the busy node lacks room",
			Nodes:    nodes(2),
			Existing: []*corev1.Pod{bound("busy", "n2", fixture.WithRequests("memory", "15Gi"))},
			Pod:      fixture.Pod("in", fixture.WithRequests("memory", "2Gi")),
			Want:     "n1", WantFilter: fResources,
		},
		{
			Name:     "ephemeral-storage",
			Nodes:    nodes(2),
			Existing: []*corev1.Pod{bound("busy", "n1", fixture.WithRequests("ephemeral-storage", "90Gi"))},
			Pod:      fixture.Pod("in", fixture.WithRequests("cpu", "100m", "ephemeral-storage", "20Gi")),
			Want:     "n2", WantFilter: fResources,
		},
		{
			Name:  "extended resource only on one node",
			Nodes: []*corev1.Node{node("n1", ""), node("n2", "", fixture.WithCapacity("example.com/gpu", "2"))},
			Pod:   fixture.Pod("in", fixture.WithRequests("cpu", "100m", "example.com/gpu", "1"), fixture.WithLimits("example.com/gpu", "1")),
			Want:  "n2", WantFilter: fResources,
		},
		{
			Name:     "pod count",
			Nodes:    []*corev1.Node{node("n1", "", fixture.WithCapacity(corev1.ResourcePods, "1")), node("n2", "")},
			Existing: []*corev1.Pod{bound("one", "n1", fixture.WithRequests("cpu", "10m"))},
			Pod:      fixture.Pod("in"),
			Want:     "n2", WantFilter: fResources,
		},
		{
			Name:     "init container peak exceeds the app sum",
			Nodes:    nodes(2),
			Existing: []*corev1.Pod{bound("busy", "n1", fixture.WithRequests("cpu", "1"))},
			Pod:      fixture.Pod("in", fixture.WithRequests("cpu", "1"), fixture.WithInitContainer("init", false, "cpu", "3500m")),
			Want:     "n2", WantFilter: fResources,
		},
		{
			Name:     "sidecar adds to the init peak that follows it",
			Nodes:    nodes(2),
			Existing: []*corev1.Pod{bound("busy", "n1", fixture.WithRequests("cpu", "800m"))},
			Pod: fixture.Pod("in", fixture.WithRequests("cpu", "2"),
				fixture.WithInitContainer("proxy", true, "cpu", "1"), fixture.WithInitContainer("setup", false, "cpu", "2500m")),
			Want: "n2", WantFilter: fResources,
		},
		{
			Name:     "sidecar counts with the app containers",
			Nodes:    nodes(2),
			Existing: []*corev1.Pod{bound("busy", "n2", fixture.WithRequests("cpu", "1500m"))},
			Pod: fixture.Pod("in", fixture.WithRequests("cpu", "2"),
				fixture.WithInitContainer("setup", false, "cpu", "1"), fixture.WithInitContainer("proxy", true, "cpu", "1")),
			Want: "n1", WantFilter: fResources,
		},
		{
			Name:           "pod overhead",
			Nodes:          nodes(2),
			RuntimeClasses: []*nodev1.RuntimeClass{runtimeClass("conformance-overhead", "1")},
			Existing:       []*corev1.Pod{bound("busy", "n1", fixture.WithRequests("cpu", "2500m"))},
			Pod:            fixture.Pod("in", fixture.WithRequests("cpu", "1"), withRuntimeClass("conformance-overhead", "1")),
			Want:           "n2", WantFilter: fResources,
		},
		{
			Name:  "fits nowhere",
			Nodes: nodes(2),
			Pod:   fixture.Pod("in", fixture.WithRequests("cpu", "5")),
			Want:  "", WantFilter: fResources,
		},
	}
}

func runtimeClass(name, cpu string) *nodev1.RuntimeClass {
	return &nodev1.RuntimeClass{
		ObjectMeta: metav1.ObjectMeta{Name: name}, Handler: "runc",
		Overhead: &nodev1.Overhead{PodFixed: corev1.ResourceList{corev1.ResourceCPU: quantity(cpu)}},
	}
}

func withRuntimeClass(name, cpu string) fixture.PodOption {
	return func(p *corev1.Pod) {
		p.Spec.RuntimeClassName = &name
		p.Spec.Overhead = corev1.ResourceList{corev1.ResourceCPU: quantity(cpu)}
	}
}
