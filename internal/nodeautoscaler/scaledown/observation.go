package scaledown

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/kscale/kscale/internal/cloudprovider"
)

// Observation is what the loop read from the cloud and the cluster; the
// loop turns it into an Input with InputFrom.
type Observation struct {
	// Groups are the provider's node groups.
	Groups []cloudprovider.NodeGroup
	// Instances are each group's instances, by group id.
	Instances map[string][]cloudprovider.Instance
	// Nodes are every node.
	Nodes []*corev1.Node
	// Pods are every pod; pending and finished ones are left out.
	Pods []*corev1.Pod
	// PodsOn, when set, returns the bound, unfinished pods of a node in
	// Pods' order; it becomes the Input's PodsOn and Pods is not read.
	PodsOn func(node string) []*corev1.Pod
	// PDBs are every PodDisruptionBudget.
	PDBs []*policyv1.PodDisruptionBudget
	// Namespaces, PersistentVolumes, PersistentVolumeClaims,
	// StorageClasses, CSINodes and Controllers are passed on to the Input
	// as they are; they may be nil.
	Namespaces             []*corev1.Namespace
	PersistentVolumes      []*corev1.PersistentVolume
	PersistentVolumeClaims []*corev1.PersistentVolumeClaim
	StorageClasses         []*storagev1.StorageClass
	CSINodes               []*storagev1.CSINode
	Controllers            ControllerLookup
	// Ready reports the autoscaler's readiness of a node.
	Ready func(*corev1.Node) bool
	// Now is the loop time.
	Now time.Time
}

// InputFrom pairs nodes with their group and instance through
// spec.providerID and keeps the bound, unfinished pods (the planner ignores
// those of nodes not in Nodes). The caller adds
// Placed, SchedulablePending and LastScaleUp.
func InputFrom(o Observation) Input {
	type member struct{ group, instance string }
	count := 0
	for _, g := range o.Groups {
		count += len(o.Instances[g.ID])
	}
	byProviderID := make(map[string]member, count)
	in := Input{PDBs: o.PDBs, Now: o.Now, Nodes: make([]Node, 0, len(o.Nodes)),
		Namespaces: o.Namespaces, PersistentVolumes: o.PersistentVolumes, PersistentVolumeClaims: o.PersistentVolumeClaims,
		StorageClasses: o.StorageClasses, CSINodes: o.CSINodes,
		Controllers: o.Controllers, Groups: make([]Group, 0, len(o.Groups))}
	for _, g := range o.Groups {
		in.Groups = append(in.Groups, Group{ID: g.ID, MinSize: g.MinSize, TargetSize: g.TargetSize, Blocked: g.ScaleDownBlocked, Options: g.Options})
		for _, i := range o.Instances[g.ID] {
			if i.ProviderID != "" && !i.Placeholder {
				byProviderID[i.ProviderID] = member{g.ID, i.ID}
			}
		}
	}
	for _, n := range o.Nodes {
		m := byProviderID[n.Spec.ProviderID]
		in.Nodes = append(in.Nodes, Node{Node: n, Group: m.group, Instance: m.instance, Ready: o.Ready == nil || o.Ready(n)})
	}
	if o.PodsOn != nil {
		in.PodsOn = o.PodsOn
		return in
	}
	// Pods of nodes not in the list are kept here and dropped by the
	// planner, which pairs pods with nodes anyway.
	in.Pods = make([]*corev1.Pod, 0, len(o.Pods))
	for _, p := range o.Pods {
		if p.Spec.NodeName != "" && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
			in.Pods = append(in.Pods, p)
		}
	}
	return in
}
