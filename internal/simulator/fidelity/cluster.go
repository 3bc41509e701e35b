package fidelity

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/kscale/kscale/internal/simulator"
)

// Cluster is one generated case: a cluster and the pending pods to check
// against it, each on its own.
type Cluster struct {
	// Seed generated the cluster (0 for a shrunk or hand-made one).
	Seed int64 `json:"seed,omitempty"`
	// Nodes, in the order both sides evaluate them.
	Nodes []*corev1.Node `json:"nodes,omitempty"`
	// Pods are bound through spec.nodeName.
	Pods                   []*corev1.Pod                   `json:"pods,omitempty"`
	Namespaces             []*corev1.Namespace             `json:"namespaces,omitempty"`
	PersistentVolumes      []*corev1.PersistentVolume      `json:"persistentVolumes,omitempty"`
	PersistentVolumeClaims []*corev1.PersistentVolumeClaim `json:"persistentVolumeClaims,omitempty"`
	StorageClasses         []*storagev1.StorageClass       `json:"storageClasses,omitempty"`
	CSINodes               []*storagev1.CSINode            `json:"csiNodes,omitempty"`
	Services               []*corev1.Service               `json:"services,omitempty"`
	ReplicaSets            []*appsv1.ReplicaSet            `json:"replicaSets,omitempty"`
	// Pending pods, each checked against the cluster as it is.
	Pending []*corev1.Pod `json:"pending,omitempty"`
	// Features counts the pending pods per generated feature.
	Features map[string]int64 `json:"-"`
}

// Request returns the oracle request for the cluster.
func (c *Cluster) Request() *Request {
	return &Request{
		Nodes: values(c.Nodes), Pods: values(c.Pods), Namespaces: values(c.Namespaces),
		PersistentVolumes: values(c.PersistentVolumes), PersistentVolumeClaims: values(c.PersistentVolumeClaims),
		StorageClasses: values(c.StorageClasses), CSINodes: values(c.CSINodes),
		Services: values(c.Services), ReplicaSets: values(c.ReplicaSets), Pending: values(c.Pending),
	}
}

func values[T any](in []*T) []T {
	if len(in) == 0 {
		return nil
	}
	out := make([]T, len(in))
	for i, p := range in {
		out[i] = *p
	}
	return out
}

// Snapshot builds the simulator's snapshot of the cluster.
func (c *Cluster) Snapshot() (*simulator.Snapshot, error) {
	s := simulator.NewSnapshot()
	for _, ns := range c.Namespaces {
		s.AddNamespace(ns)
	}
	for _, pv := range c.PersistentVolumes {
		s.AddPersistentVolume(pv)
	}
	for _, pvc := range c.PersistentVolumeClaims {
		s.AddPersistentVolumeClaim(pvc)
	}
	for _, sc := range c.StorageClasses {
		s.AddStorageClass(sc)
	}
	for _, n := range c.CSINodes {
		s.AddCSINode(n)
	}
	for _, n := range c.Nodes {
		if err := s.AddNode(n); err != nil {
			return nil, err
		}
	}
	for _, p := range c.Pods {
		if err := s.AddPod(p); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Simulate returns the simulator's verdict for every pending pod on every
// node: nil where it fits.
func (c *Cluster) Simulate() ([][]*simulator.FitError, error) {
	s, err := c.Snapshot()
	if err != nil {
		return nil, err
	}
	out := make([][]*simulator.FitError, len(c.Pending))
	for i, p := range c.Pending {
		out[i] = make([]*simulator.FitError, len(c.Nodes))
		for j, n := range c.Nodes {
			out[i][j] = s.CheckFit(p, n.Name)
		}
	}
	return out, nil
}

// Clone returns a deep copy of the cluster.
func (c *Cluster) Clone() *Cluster {
	return &Cluster{
		Seed: c.Seed, Nodes: deepCopies(c.Nodes), Pods: deepCopies(c.Pods), Namespaces: deepCopies(c.Namespaces),
		PersistentVolumes: deepCopies(c.PersistentVolumes), PersistentVolumeClaims: deepCopies(c.PersistentVolumeClaims),
		StorageClasses: deepCopies(c.StorageClasses), CSINodes: deepCopies(c.CSINodes),
		Services: deepCopies(c.Services), ReplicaSets: deepCopies(c.ReplicaSets), Pending: deepCopies(c.Pending),
	}
}

func deepCopies[T interface{ DeepCopy() T }](in []T) []T {
	if in == nil {
		return nil
	}
	out := make([]T, len(in))
	for i, o := range in {
		out[i] = o.DeepCopy()
	}
	return out
}
