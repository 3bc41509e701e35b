package fidelity

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func (g *gen) basePod(name, ns string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: g.newUID(name), Labels: g.podLabels(),
			CreationTimestamp: metav1.NewTime(time.Unix(1_700_000_000, 0))},
	}
}

func (g *gen) podLabels() map[string]string {
	l := map[string]string{}
	if g.chance(0.9) {
		l["app"] = pick(g, apps)
	}
	if g.chance(0.5) {
		l["tier"] = pick(g, tiers)
	}
	if g.chance(0.5) {
		l["ver"] = pick(g, versions)
	}
	return l
}

// requests returns a random request list: cpu and memory usually, other
// resources sometimes, and sometimes nothing at all.
func (g *gen) requests(scale int64) corev1.ResourceList {
	r := corev1.ResourceList{}
	if g.chance(0.85) {
		r[corev1.ResourceCPU] = milli(pick(g, []int64{0, 50, 100, 250, 500, 1000, 1500, 2500}) * scale)
	}
	if g.chance(0.8) {
		r[corev1.ResourceMemory] = mebi(pick(g, []int64{0, 64, 256, 1024, 2048, 4096}) * scale)
	}
	if g.chance(0.1) {
		g.feature("resources/ephemeral-storage")
		r[corev1.ResourceEphemeralStorage] = mebi(pick(g, []int64{1024, 20480}))
	}
	if g.chance(0.1) {
		g.feature("resources/extended")
		r[resGPU] = count(int64(1 + g.r.IntN(2)))
	}
	if g.chance(0.05) {
		g.feature("resources/hugepages")
		r[resHugePages] = mebi(pick(g, []int64{256, 1024}))
	}
	return r
}

func (g *gen) container(name string, scale int64) corev1.Container {
	return corev1.Container{Name: name, Image: "example.com/app", Resources: corev1.ResourceRequirements{Requests: g.requests(scale)}}
}

func (g *gen) boundPod(n *corev1.Node) *corev1.Pod {
	p := g.basePod(fmt.Sprintf("b%d", len(g.c.Pods)), pick(g, namespaces))
	p.Spec.NodeName = n.Name
	p.Status.Phase = corev1.PodRunning
	for i := range 1 + g.r.IntN(2) {
		p.Spec.Containers = append(p.Spec.Containers, g.container(fmt.Sprintf("c%d", i), 1))
	}
	if g.chance(0.1) {
		g.hostPorts(p)
	}
	if g.chance(0.15) {
		p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: g.affinityTerms()}}
	}
	if g.chance(0.05) {
		p.DeletionTimestamp = &metav1.Time{Time: time.Unix(1_700_000_100, 0)}
		if g.chance(0.3) {
			p.Namespace = "ns-gone" // its namespace was deleted: not registered
		}
	}
	if g.chance(0.15) {
		g.podVolumes(p)
	}
	if g.chance(0.06) {
		g.resizeStatus(p)
	}
	return p
}

// resizeStatus gives the first container actuated requests that differ
// from its spec, as during an in-place resize.
func (g *gen) resizeStatus(p *corev1.Pod) {
	c := &p.Spec.Containers[0]
	actual := corev1.ResourceList{corev1.ResourceCPU: milli(pick(g, []int64{100, 2000, 3000})), corev1.ResourceMemory: mebi(pick(g, []int64{128, 4096}))}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: c.Name, AllocatedResources: actual,
		Resources: &corev1.ResourceRequirements{Requests: actual}}}
	if g.chance(0.3) {
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.PodResizePending,
			Status: corev1.ConditionTrue, Reason: pick(g, []string{corev1.PodReasonInfeasible, corev1.PodReasonDeferred})})
	}
}

func (g *gen) pendingPod(i int) *corev1.Pod {
	p := g.basePod(fmt.Sprintf("p%d", i), pick(g, namespaces))
	p.Status.Phase = corev1.PodPending
	for j := range 1 + g.r.IntN(3) {
		p.Spec.Containers = append(p.Spec.Containers, g.container(fmt.Sprintf("c%d", j), 1))
	}
	if g.chance(0.25) {
		g.initContainers(p)
	}
	if g.chance(0.1) {
		g.feature("resources/overhead")
		p.Spec.Overhead = corev1.ResourceList{corev1.ResourceCPU: milli(100), corev1.ResourceMemory: mebi(64)}
	}
	if g.chance(0.08) {
		g.feature("resources/pod-level")
		p.Spec.Resources = &corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: milli(pick(g, []int64{500, 3000})), corev1.ResourceMemory: mebi(pick(g, []int64{512, 8192}))}}
		if g.chance(0.2) {
			p.Spec.Resources.Requests[resHugePages] = mebi(256)
		}
	}
	if g.chance(g.p.ports) {
		g.hostPorts(p)
	}
	if g.chance(g.p.tolerations) {
		g.tolerations(p)
	}
	if g.chance(g.p.nodeSelector) {
		g.nodeSelector(p)
	}
	if g.chance(g.p.nodeAffinity) {
		g.nodeAffinity(p)
	}
	if g.chance(g.p.affinity) {
		g.podAffinity(p, false)
	}
	if g.chance(g.p.anti) {
		g.podAffinity(p, true)
	}
	if g.chance(g.p.spread) {
		g.spread(p)
	}
	if g.chance(g.p.vols) {
		g.podVolumes(p)
	}
	g.pendingExtras(p)
	return p
}

func (g *gen) initContainers(p *corev1.Pod) {
	for j := range 1 + g.r.IntN(2) {
		c := g.container(fmt.Sprintf("init%d", j), 2)
		if g.chance(0.5) {
			g.feature("resources/sidecar")
			c.RestartPolicy = ptr.To(corev1.ContainerRestartPolicyAlways)
		} else {
			g.feature("resources/init-container")
		}
		p.Spec.InitContainers = append(p.Spec.InitContainers, c)
	}
}

// pendingExtras adds the rarer fields: node name, priority, an owning
// ReplicaSet behind a Service (cluster-default spread), resource claims
// and node-declared features.
func (g *gen) pendingExtras(p *corev1.Pod) {
	if g.chance(0.04) {
		g.feature("nodeName")
		p.Spec.NodeName = pick(g, g.c.Nodes).Name
		if g.chance(0.2) {
			p.Spec.NodeName = "absent-node"
		}
	}
	if g.chance(0.2) {
		p.Spec.Priority = ptr.To(int32(g.r.IntN(1000)))
	}
	if g.chance(0.3) && p.Labels["app"] != "" {
		g.feature("spread/cluster-default (owned, selected by a Service)")
		rs := g.replicaSet(p.Namespace, p.Labels["app"])
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID, Controller: ptr.To(true)}}
	}
	if g.chance(0.03) {
		g.feature("dra/resource-claims")
		p.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimName: ptr.To("claim-" + p.Name)}}
		p.Spec.Containers[0].Resources.Claims = []corev1.ResourceClaim{{Name: "gpu"}}
	}
	if g.chance(0.04) {
		g.feature("node-declared-features")
		if g.chance(0.5) {
			p.Spec.HostNetwork, p.Spec.HostUsers = true, ptr.To(false)
		} else {
			p.Spec.Containers[0].RestartPolicy = ptr.To(corev1.ContainerRestartPolicyNever)
			p.Spec.Containers[0].RestartPolicyRules = []corev1.ContainerRestartRule{{
				Action:    corev1.ContainerRestartRuleActionRestartAllContainers,
				ExitCodes: &corev1.ContainerRestartRuleOnExitCodes{Operator: corev1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{42}},
			}}
		}
	}
}

// replicaSet returns the namespace's ReplicaSet for the app, creating it
// and a Service selecting its pods on first use.
func (g *gen) replicaSet(ns, app string) *appsv1.ReplicaSet {
	name := "rs-" + app
	for _, rs := range g.c.ReplicaSets {
		if rs.Namespace == ns && rs.Name == name {
			return rs
		}
	}
	sel := map[string]string{"app": app}
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: g.newUID(name)},
		Spec: appsv1.ReplicaSetSpec{Selector: &metav1.LabelSelector{MatchLabels: sel},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: sel}}}}
	g.c.ReplicaSets = append(g.c.ReplicaSets, rs)
	g.c.Services = append(g.c.Services, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "svc-" + app, Namespace: ns},
		Spec: corev1.ServiceSpec{Selector: sel}})
	return rs
}

// hostPorts gives a container (or a sidecar or plain init container) host
// ports from a small set, so they collide.
func (g *gen) hostPorts(p *corev1.Pod) {
	g.feature("host-ports")
	for range 1 + g.r.IntN(2) {
		port := corev1.ContainerPort{ContainerPort: 8000, HostPort: pick(g, []int32{80, 443, 8080})}
		port.Protocol = pick(g, []corev1.Protocol{"", corev1.ProtocolTCP, corev1.ProtocolTCP, corev1.ProtocolUDP, corev1.ProtocolSCTP})
		port.HostIP = pick(g, []string{"", "", "", "0.0.0.0", "10.0.0.1", "10.0.0.2"})
		if len(p.Spec.InitContainers) > 0 && g.chance(0.3) {
			c := &p.Spec.InitContainers[g.r.IntN(len(p.Spec.InitContainers))]
			c.Ports = append(c.Ports, port)
			g.feature("host-ports/init-container")
			continue
		}
		c := &p.Spec.Containers[g.r.IntN(len(p.Spec.Containers))]
		c.Ports = append(c.Ports, port)
	}
}
