package live

import (
	"k8s.io/client-go/kubernetes"

	"github.com/kscale/kscale/internal/nodeautoscaler"
	"github.com/kscale/kscale/internal/nodeautoscaler/actuation"
)

// ScaleDownCluster is nodeautoscaler.ScaleDownCluster of a live cluster:
// taints, evictions and fresh pod reads through the API (actuation.Kube),
// PodDisruptionBudgets from the loop's view.
type ScaleDownCluster struct {
	*actuation.Kube
	*Cluster
}

var _ nodeautoscaler.ScaleDownCluster = ScaleDownCluster{}

// NewScaleDownCluster returns the scale-down side of cluster, acting
// through client.
func NewScaleDownCluster(client kubernetes.Interface, cluster *Cluster) ScaleDownCluster {
	return ScaleDownCluster{Kube: actuation.NewKube(client), Cluster: cluster}
}
