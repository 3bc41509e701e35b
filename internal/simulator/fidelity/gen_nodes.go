package fidelity

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// taintVocabulary are the taints nodes draw from and tolerations aim at.
var taintVocabulary = []corev1.Taint{
	{Key: "dedicated", Value: "infra", Effect: corev1.TaintEffectNoSchedule},
	{Key: "dedicated", Value: "batch", Effect: corev1.TaintEffectNoExecute},
	{Key: "gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule},
	{Key: "spot", Value: "true", Effect: corev1.TaintEffectPreferNoSchedule},
	{Key: "example.com/maintenance", Effect: corev1.TaintEffectNoExecute},
}

// declaredFeatures are node-declared features the NodeDeclaredFeatures
// filter matches pods against.
var declaredFeatures = []string{"RestartAllContainersOnContainerExits", "UserNamespacesHostNetworkSupport"}

func (g *gen) node(i int) *corev1.Node {
	name := fmt.Sprintf("n%d", i)
	labels := map[string]string{keyHost: name}
	if g.chance(0.1) {
		labels[keyHost] = "host-" + name
	}
	if g.chance(0.9) {
		z := pick(g, zones)
		labels[keyZone] = z
		if g.chance(0.8) {
			labels[keyRegion] = zoneRegion(z)
		}
		if g.chance(0.15) {
			labels[keyBetaZone] = z
		}
	}
	if g.chance(0.7) {
		labels[keyRack] = pick(g, racks)
	}
	if g.chance(0.8) {
		labels[keyPool] = pick(g, pools)
	}
	if g.chance(0.7) {
		labels[keyCores] = pick(g, cores)
	}
	alloc := corev1.ResourceList{
		corev1.ResourceCPU:    milli(pick(g, g.p.cpu)),
		corev1.ResourceMemory: mebi(pick(g, g.p.memMi)),
		corev1.ResourcePods:   count(pick(g, g.p.pods)),
	}
	if g.chance(0.7) {
		alloc[corev1.ResourceEphemeralStorage] = mebi(pick(g, []int64{10240, 51200}))
	}
	if g.chance(0.25) {
		labels[keyGPU] = "true"
		alloc[resGPU] = count(int64(1 + g.r.IntN(4)))
	}
	if g.chance(0.3) {
		alloc[resHugePages] = mebi(pick(g, []int64{0, 512}))
	}
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, UID: g.newUID("node")},
		Status:     corev1.NodeStatus{Allocatable: alloc, Capacity: alloc},
	}
	if g.chance(g.p.taint) {
		n.Spec.Taints = append(n.Spec.Taints, some(g, taintVocabulary, 2)...)
	}
	n.Spec.Unschedulable = g.chance(g.p.unschedulable)
	if g.chance(0.3) {
		n.Status.DeclaredFeatures = some(g, declaredFeatures, 2)
	}
	return n
}

// csiNodes gives about half the nodes a CSINode for the test driver, most
// with an attach limit.
func (g *gen) csiNodes() {
	for _, n := range g.c.Nodes {
		if !g.chance(0.5) {
			continue
		}
		d := storagev1.CSINodeDriver{Name: csiDriver, NodeID: n.Name}
		if g.chance(0.8) {
			d.Allocatable = &storagev1.VolumeNodeResources{Count: ptr.To(int32(1 + g.r.IntN(3)))}
		}
		g.c.CSINodes = append(g.c.CSINodes, &storagev1.CSINode{
			ObjectMeta: metav1.ObjectMeta{Name: n.Name},
			Spec:       storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{d}},
		})
	}
}
