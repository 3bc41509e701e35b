package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// The shape of every node: 4 CPUs, 16 GiB, 110 pods. The running pods fill
// 90% of a node's CPU, so no pending pod of a burst fits an existing node.
const (
	nodeCPUMilli   = 4000
	nodeMemoryMi   = 16 * 1024
	maxPodsPerNode = 110
	// fillFraction of a node's CPU goes to its running pods.
	fillFraction = 0.9
	// Namespace holds every pod and ReplicaSet of the harness.
	Namespace = "livebench"
	// LabelBurst marks a pending pod with its burst number.
	LabelBurst = "livebench.kscale.dev/burst"
	// LabelOwner is each pod's app label, its ReplicaSet's selector.
	LabelOwner = "app"
	// zone is the zone of every node.
	zone = "zone-a"
)

// groupNames returns the node groups' names.
func groupNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "bench-" + strconv.Itoa(i)
	}
	return out
}

// nodeResources is the capacity (= allocatable) of every node.
func nodeResources() corev1.ResourceList {
	return corev1.ResourceList{
		corev1.ResourceCPU:    *resource.NewMilliQuantity(nodeCPUMilli, resource.DecimalSI),
		corev1.ResourceMemory: *resource.NewQuantity(nodeMemoryMi<<20, resource.BinarySI),
		corev1.ResourcePods:   *resource.NewQuantity(maxPodsPerNode, resource.DecimalSI),
	}
}

// readyStatus is the status of a Ready node of the standard shape.
func readyStatus(now time.Time) corev1.NodeStatus {
	t := metav1.NewTime(now)
	return corev1.NodeStatus{Capacity: nodeResources(), Allocatable: nodeResources(),
		Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
			Message: "written Ready by livebench", LastHeartbeatTime: t, LastTransitionTime: t}},
		NodeInfo: corev1.NodeSystemInfo{Architecture: "amd64", OperatingSystem: "linux", KubeletVersion: "livebench"}}
}

// isReady reports whether a node has a Ready=True condition.
func isReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// replicaSet is the owner of pods labelled app=name; no controller runs it.
func replicaSet(name string, replicas int) *appsv1.ReplicaSet {
	labels := map[string]string{LabelOwner: name}
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: Namespace, Labels: labels},
		Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To(int32(replicas)), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}}}}},
	}
}

// ownedPod is a pod of rs with the given CPU and memory requests.
func ownedPod(name string, rs *appsv1.ReplicaSet, cpuMilli, memMi int64) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: Namespace, Labels: map[string]string{LabelOwner: rs.Name},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID,
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}}},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{
					corev1.ResourceCPU:    *resource.NewMilliQuantity(cpuMilli, resource.DecimalSI),
					corev1.ResourceMemory: *resource.NewQuantity(memMi<<20, resource.BinarySI)}}}},
			TerminationGracePeriodSeconds: ptr.To(int64(0)),
		},
	}
}

// runningRequests are the CPU (milli) and memory (Mi) requests of each of
// perNode running pods that together fill fillFraction of a node's CPU and
// half its memory.
func runningRequests(perNode int) (cpuMilli, memMi int64) {
	if perNode <= 0 {
		return 0, 0
	}
	return int64(fillFraction*nodeCPUMilli) / int64(perNode), int64(nodeMemoryMi/2) / int64(perNode)
}

// runningPod is a pod bound to node, to be marked Running by runningStatus.
func runningPod(name, node string, rs *appsv1.ReplicaSet, cpuMilli, memMi int64) *corev1.Pod {
	p := ownedPod(name, rs, cpuMilli, memMi)
	p.Spec.NodeName = node
	return p
}

// runningStatus is the status a kubelet would write for a started pod.
func runningStatus(now time.Time) corev1.PodStatus {
	t := metav1.NewTime(now)
	cond := func(c corev1.PodConditionType) corev1.PodCondition {
		return corev1.PodCondition{Type: c, Status: corev1.ConditionTrue, LastTransitionTime: t}
	}
	return corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &t,
		Conditions: []corev1.PodCondition{cond(corev1.PodScheduled), cond(corev1.PodInitialized),
			cond(corev1.ContainersReady), cond(corev1.PodReady)}}
}

// burstPod is a pending pod of burst b of the given kind; every kind needs
// a node of its own.
func burstPod(name string, b int, kind string, rs *appsv1.ReplicaSet) *corev1.Pod {
	cpu := int64(nodeCPUMilli * 5 / 8)
	if kind == KindAntiAffinity {
		cpu = nodeCPUMilli / 4 // fits no existing node (10% free), so anti-affinity is not what decides
	}
	p := ownedPod(name, rs, cpu, 1024)
	p.Labels[LabelBurst] = strconv.Itoa(b)
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{LabelOwner: rs.Name}}
	switch kind {
	case KindSpread:
		p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: corev1.LabelHostname,
			WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: sel}}
	case KindAntiAffinity:
		p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{TopologyKey: corev1.LabelHostname, LabelSelector: sel}}}}
	}
	return p
}

// kscaleCloudConfig is kscale's kwok --cloud-config for the groups: every
// node of the standard shape, booted at once (bootTime 0s), so a new node is
// written Ready by the provider itself.
func kscaleCloudConfig(groups []string, max int) string {
	var b strings.Builder
	b.WriteString("nodeGroups:\n")
	for _, g := range groups {
		fmt.Fprintf(&b, "- name: %s\n  max: %d\n  resources: {cpu: \"%dm\", memory: %dMi, pods: \"%d\"}\n  zone: %s\n  labels: {livebench.kscale.dev/group: %s}\n  bootTime: 0s\n",
			g, max, nodeCPUMilli, nodeMemoryMi, maxPodsPerNode, zone, g)
	}
	return b.String()
}
