package conformance

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/simulator"
)

// Filter names re-exported for the table.
const (
	fResources = simulator.FilterNodeResourcesFit
	fTaint     = simulator.FilterTaintToleration
	fAffinity  = simulator.FilterNodeAffinity
	fPorts     = simulator.FilterNodePorts
	fInterPod  = simulator.FilterInterPodAffinity
	fSpread    = simulator.FilterPodTopologySpread
	fVolume    = simulator.FilterVolumeBinding
	fCordon    = simulator.FilterNodeUnschedulable
)

const (
	zoneKey     = corev1.LabelTopologyZone
	hostnameKey = corev1.LabelHostname
)

// node returns a 4-CPU / 16Gi / 110-pod node in the zone ("" for none).
func node(name, zone string, opts ...fixture.NodeOption) *corev1.Node {
	if zone != "" {
		opts = append([]fixture.NodeOption{fixture.WithZone(zone)}, opts...)
	}
	return fixture.Node(name, opts...)
}

// nodes returns nodes n1..nk without a zone.
func nodes(k int) []*corev1.Node {
	out := make([]*corev1.Node, k)
	for i := range out {
		out[i] = node("n"+string(rune('1'+i)), "")
	}
	return out
}

// bound returns a pod bound to the node.
func bound(name, nodeName string, opts ...fixture.PodOption) *corev1.Pod {
	return fixture.Pod(name, append([]fixture.PodOption{fixture.OnNode(nodeName)}, opts...)...)
}

// fill returns a pod that takes all 4 CPUs of the node.
func fill(nodeName string) *corev1.Pod {
	return bound("fill-"+nodeName, nodeName, fixture.WithRequests("cpu", "4"))
}

func labels(kv ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

func selector(kv ...string) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: labels(kv...)}
}

func term(topologyKey string, kv ...string) corev1.PodAffinityTerm {
	return corev1.PodAffinityTerm{LabelSelector: selector(kv...), TopologyKey: topologyKey}
}

func podAffinity(terms ...corev1.PodAffinityTerm) fixture.PodOption {
	return fixture.WithAffinity(&corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: terms}})
}

func podAntiAffinity(terms ...corev1.PodAffinityTerm) fixture.PodOption {
	return fixture.WithAffinity(&corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: terms}})
}

func nodeAffinity(terms ...corev1.NodeSelectorTerm) fixture.PodOption {
	return fixture.WithAffinity(&corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms},
	}})
}

func in(key string, values ...string) corev1.NodeSelectorTerm {
	return corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{
		{Key: key, Operator: corev1.NodeSelectorOpIn, Values: values},
	}}
}

func spread(maxSkew int32, key string, kv ...string) corev1.TopologySpreadConstraint {
	return corev1.TopologySpreadConstraint{
		MaxSkew: maxSkew, TopologyKey: key, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: selector(kv...),
	}
}

func namespace(name string, kv ...string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels(kv...)}}
}

func toleration(key string, effect corev1.TaintEffect) corev1.Toleration {
	return corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: effect}
}

func withPort(port int32, protocol corev1.Protocol, hostIP string) fixture.PodOption {
	return func(p *corev1.Pod) {
		c := &p.Spec.Containers[0]
		c.Ports = append(c.Ports, corev1.ContainerPort{ContainerPort: port, HostPort: port, Protocol: protocol, HostIP: hostIP})
	}
}

func quantity(s string) resource.Quantity { return resource.MustParse(s) }
