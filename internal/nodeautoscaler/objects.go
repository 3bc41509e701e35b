package nodeautoscaler

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/kscale/kscale/internal/nodeautoscaler/scaledown"
)

// ObjectCluster is what a Cluster may also offer: the namespaces,
// PersistentVolumes, PersistentVolumeClaims, StorageClasses and CSINodes
// of the same view as its nodes and pods. The loop puts them into its
// simulator snapshot (for namespaceSelector and the volume filters) in
// scale-up and scale-down. A Cluster without them simulates without them:
// a pod using a claim then fits no node.
type ObjectCluster interface {
	// ListNamespaces returns every namespace.
	ListNamespaces(ctx context.Context) ([]*corev1.Namespace, error)
	// ListPersistentVolumes returns every PersistentVolume.
	ListPersistentVolumes(ctx context.Context) ([]*corev1.PersistentVolume, error)
	// ListPersistentVolumeClaims returns every PersistentVolumeClaim.
	ListPersistentVolumeClaims(ctx context.Context) ([]*corev1.PersistentVolumeClaim, error)
	// ListStorageClasses returns every StorageClass.
	ListStorageClasses(ctx context.Context) ([]*storagev1.StorageClass, error)
	// ListCSINodes returns every CSINode.
	ListCSINodes(ctx context.Context) ([]*storagev1.CSINode, error)
}

// ControllerCluster is what a Cluster may also offer: a lookup of pod
// controllers (ReplicaSets, StatefulSets, Jobs, ReplicationControllers) of
// the same view as its pods. Scale-down keeps a node whose pod lost its
// controller. Without it every controller is taken to exist.
type ControllerCluster interface {
	// PodControllers returns the lookup of the current view.
	PodControllers(ctx context.Context) (scaledown.ControllerLookup, error)
}

// clusterObjects are the objects beyond nodes and pods one loop read.
type clusterObjects struct {
	namespaces  []*corev1.Namespace
	pvs         []*corev1.PersistentVolume
	pvcs        []*corev1.PersistentVolumeClaim
	classes     []*storagev1.StorageClass
	csiNodes    []*storagev1.CSINode
	controllers scaledown.ControllerLookup
}

// observeObjects reads what the Cluster offers beyond nodes and pods.
func observeObjects(ctx context.Context, c Cluster) (clusterObjects, error) {
	var o clusterObjects
	var err error
	if oc, ok := c.(ObjectCluster); ok {
		if o.namespaces, err = oc.ListNamespaces(ctx); err != nil {
			return o, fmt.Errorf("listing namespaces: %w", err)
		}
		if o.pvs, err = oc.ListPersistentVolumes(ctx); err != nil {
			return o, fmt.Errorf("listing persistent volumes: %w", err)
		}
		if o.pvcs, err = oc.ListPersistentVolumeClaims(ctx); err != nil {
			return o, fmt.Errorf("listing persistent volume claims: %w", err)
		}
		if o.classes, err = oc.ListStorageClasses(ctx); err != nil {
			return o, fmt.Errorf("listing storage classes: %w", err)
		}
		if o.csiNodes, err = oc.ListCSINodes(ctx); err != nil {
			return o, fmt.Errorf("listing CSI nodes: %w", err)
		}
	}
	if cc, ok := c.(ControllerCluster); ok {
		if o.controllers, err = cc.PodControllers(ctx); err != nil {
			return o, fmt.Errorf("listing pod controllers: %w", err)
		}
	}
	return o, nil
}
