package nodeautoscaler

import (
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/kscale/kscale/internal/nodeautoscaler/scaledown"
)

// clusterObjects are the objects beyond nodes and pods one loop read.
type clusterObjects struct {
	namespaces  []*corev1.Namespace
	pvs         []*corev1.PersistentVolume
	pvcs        []*corev1.PersistentVolumeClaim
	classes     []*storagev1.StorageClass
	csiNodes    []*storagev1.CSINode
	controllers scaledown.ControllerLookup
}
