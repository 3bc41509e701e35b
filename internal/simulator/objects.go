package simulator

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kscale/kscale/internal/scheduling"
)

// AddNamespace registers (or replaces) a namespace; its labels feed
// namespaceSelector in pod (anti-)affinity terms.
func (s *Snapshot) AddNamespace(ns *corev1.Namespace) {
	old, had := s.namespaces[ns.Name]
	s.namespaces[ns.Name] = ns
	s.recordFunc(func() { restore(s.namespaces, ns.Name, old, had) })
}

// AddPersistentVolume registers (or replaces) a PersistentVolume.
func (s *Snapshot) AddPersistentVolume(pv *corev1.PersistentVolume) {
	old, had := s.pvs[pv.Name]
	s.pvs[pv.Name] = pv
	s.recordFunc(func() { restore(s.pvs, pv.Name, old, had) })
}

// AddPersistentVolumeClaim registers (or replaces) a PersistentVolumeClaim.
func (s *Snapshot) AddPersistentVolumeClaim(pvc *corev1.PersistentVolumeClaim) {
	key := types.NamespacedName{Namespace: pvc.Namespace, Name: pvc.Name}
	old, had := s.pvcs[key]
	s.pvcs[key] = pvc
	s.recordFunc(func() { restore(s.pvcs, key, old, had) })
}

// AddStorageClass registers (or replaces) a StorageClass; unbound claims
// of late-binding classes are provisioned or matched per node with it.
func (s *Snapshot) AddStorageClass(sc *storagev1.StorageClass) {
	old, had := s.classes[sc.Name]
	s.classes[sc.Name] = sc
	s.recordFunc(func() { restore(s.classes, sc.Name, old, had) })
}

// AddCSINode registers (or replaces) a CSINode: its drivers' attach
// limits bound the CSI volumes pods may use on the node of that name.
func (s *Snapshot) AddCSINode(n *storagev1.CSINode) {
	old, had := s.csiNodes[n.Name]
	s.csiNodes[n.Name] = n
	s.recordFunc(func() { restore(s.csiNodes, n.Name, old, had) })
}

func restore[K comparable, V any](m map[K]V, k K, old V, had bool) {
	if had {
		m[k] = old
		return
	}
	delete(m, k)
}

func (s *Snapshot) recordFunc(f func()) {
	s.record(change{op: opFunc, undo: f})
}

// namespaceLabels looks up a registered namespace's labels.
func (s *Snapshot) namespaceLabels(ns string) (labels.Set, bool) {
	n, ok := s.namespaces[ns]
	if !ok {
		return nil, false
	}
	return n.Labels, true
}

// NodeInfo is a read-only view of one node in the snapshot.
type NodeInfo struct{ n *nodeInfo }

// Node returns the node object.
func (v NodeInfo) Node() *corev1.Node { return v.n.node }

// Pods returns the pods bound to the node. Pods placed by FilterSchedulable
// or added by Estimate are the objects passed in, with spec.nodeName as it
// was: the node they are listed under is where the simulation put them.
func (v NodeInfo) Pods() []*corev1.Pod {
	out := make([]*corev1.Pod, len(v.n.pods))
	for i, e := range v.n.pods {
		out[i] = e.pod
	}
	return out
}

// Requested returns the summed requests of the node's pods.
func (v NodeInfo) Requested() scheduling.Resources { return v.n.requested.Clone() }

// Allocatable returns the node's allocatable resources.
func (v NodeInfo) Allocatable() scheduling.Resources { return v.n.alloc.Clone() }

// NodeInfo returns the named node.
func (s *Snapshot) NodeInfo(name string) (NodeInfo, bool) {
	n, ok := s.byName[name]
	if !ok {
		return NodeInfo{}, false
	}
	return NodeInfo{n: n}, true
}

// Nodes returns every node in insertion order.
func (s *Snapshot) Nodes() []NodeInfo {
	out := make([]NodeInfo, len(s.nodes))
	for i, n := range s.nodes {
		out[i] = NodeInfo{n: n}
	}
	return out
}

// NodeCount returns the number of nodes.
func (s *Snapshot) NodeCount() int { return len(s.nodes) }

// PodCount returns the number of bound pods.
func (s *Snapshot) PodCount() int { return s.podCount }

// NodeOf returns the name of the node the pod is bound to in the snapshot.
func (s *Snapshot) NodeOf(namespace, name string) (string, bool) {
	e, ok := s.lookupPod(types.NamespacedName{Namespace: namespace, Name: name})
	if !ok {
		return "", false
	}
	return e.node.node.Name, true
}

// Pod returns the pod object bound under namespace/name, if any.
func (s *Snapshot) Pod(namespace, name string) (*corev1.Pod, bool) {
	e, ok := s.lookupPod(types.NamespacedName{Namespace: namespace, Name: name})
	if !ok {
		return nil, false
	}
	return e.pod, true
}

// String summarises the snapshot for debugging.
func (s *Snapshot) String() string {
	return fmt.Sprintf("snapshot{nodes: %d, pods: %d, forks: %d}", len(s.nodes), s.podCount, len(s.forks))
}
