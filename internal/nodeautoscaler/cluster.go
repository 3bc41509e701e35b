package nodeautoscaler

import (
	"context"
	"errors"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/kscale/kscale/internal/nodeautoscaler/actuation"
	"github.com/kscale/kscale/internal/nodeautoscaler/scaledown"
)

// Cluster is the loop's read side of Kubernetes: one View per loop. Live
// it is backed by informers that keep the view's PodIndex current from
// their events; offline by the simulated cluster, which does the same. Both
// run the same input code in the loop.
type Cluster interface {
	// View returns what the next loop decides on. The loop calls it once,
	// when it starts, and reads nothing else of the cluster until it ends.
	// The view is valid until the next call.
	View(ctx context.Context) (*View, error)
}

// ScaleDownCluster is the loop's write side of Kubernetes: node taints,
// cordons and pod evictions, with the fresh reads a drain needs.
type ScaleDownCluster = actuation.Cluster

// View is one consistent read of the cluster. Every part is complete: an
// empty list means there is none of that kind, never that the cluster does
// not offer it. Returned objects are shared with their source and must not
// be modified.
type View struct {
	// Nodes are every node, in an order that stays the same while the
	// nodes do.
	Nodes []*corev1.Node
	// Pods holds every pod, sorted out for the loop; required.
	Pods *PodIndex
	// DaemonSets are every DaemonSet.
	DaemonSets []*appsv1.DaemonSet
	// PDBs are every PodDisruptionBudget.
	PDBs []*policyv1.PodDisruptionBudget
	// Namespaces are every namespace (for namespaceSelector).
	Namespaces []*corev1.Namespace
	// PersistentVolumes and PersistentVolumeClaims are every volume and
	// claim (for the volume filters).
	PersistentVolumes      []*corev1.PersistentVolume
	PersistentVolumeClaims []*corev1.PersistentVolumeClaim
	// StorageClasses and CSINodes are every class and CSI node (for the
	// volume binding and attach limit filters).
	StorageClasses []*storagev1.StorageClass
	CSINodes       []*storagev1.CSINode
	// Controllers looks up the pods' controllers (ReplicaSets,
	// StatefulSets, Jobs, ReplicationControllers); required. Scale-down
	// keeps a node whose pod lost its controller.
	Controllers scaledown.ControllerLookup
}

// errIncompleteView means a Cluster returned a view without pods or a
// controller lookup.
var errIncompleteView = errors.New("cluster view without a pod index or a controller lookup")

// objects returns the parts of the view beyond nodes and pods.
func (v *View) objects() clusterObjects {
	return clusterObjects{namespaces: v.Namespaces, pvs: v.PersistentVolumes, pvcs: v.PersistentVolumeClaims,
		classes: v.StorageClasses, csiNodes: v.CSINodes, controllers: v.Controllers}
}
