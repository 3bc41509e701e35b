package offline

import (
	"context"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/inmemory"

	"github.com/kscale/kscale/internal/nodeautoscaler"
	"github.com/kscale/kscale/internal/nodeautoscaler/scaledown"
)

// worldCluster is the autoscaler's read side of the simulated cluster: the
// nodes in registration order, the pods from the PodIndex every change of
// the simulated cluster goes to (as a live cluster's informer events do),
// the DaemonSets and the workloads' budgets.
type worldCluster struct{ w *World }

var _ nodeautoscaler.Cluster = worldCluster{}

// View implements nodeautoscaler.Cluster. The scenario format has no
// namespaces or CSI nodes, so those parts are empty; a workload's
// controller exists unless the scenario says it is missing.
func (c worldCluster) View(context.Context) (*nodeautoscaler.View, error) {
	cl := c.w.cluster
	classes, pvs, pvcs := cl.storage.lists()
	return &nodeautoscaler.View{Nodes: cl.nodeList(), Pods: cl.index, DaemonSets: slices.Clone(cl.daemonSets),
		PDBs: c.w.pdbs(), Controllers: worldControllers(c), StorageClasses: classes, PersistentVolumes: pvs,
		PersistentVolumeClaims: pvcs}, nil
}

// worldControllers finds the workloads' controllers: every workload's
// exists, with its replicas, unless its controller is missing.
type worldControllers struct{ w *World }

var _ scaledown.ControllerLookup = worldControllers{}

// ControllerExists implements scaledown.ControllerLookup.
func (c worldControllers) ControllerExists(namespace string, ref *metav1.OwnerReference) bool {
	wl := c.w.byName[ref.Name]
	return wl == nil || wl.spec.Namespace != namespace || wl.spec.Controller == nil || !wl.spec.Controller.Missing
}

// DesiredReplicas implements scaledown.ControllerLookup: the workload's
// replicas, unknown for a missing controller.
func (c worldControllers) DesiredReplicas(namespace string, ref *metav1.OwnerReference) (int32, bool) {
	wl := c.w.byName[ref.Name]
	if wl == nil || wl.spec.Namespace != namespace || (wl.spec.Controller != nil && wl.spec.Controller.Missing) {
		return 0, false
	}
	return int32(wl.replicas), true
}

// managedOnly is the cloud as the autoscaler sees it: unmanaged groups
// are not reported.
type managedOnly struct {
	*inmemory.Cloud
	unmanaged map[string]bool
}

// NodeGroups implements cloudprovider.Provider without the unmanaged
// groups.
func (m managedOnly) NodeGroups(ctx context.Context) ([]cloudprovider.NodeGroup, error) {
	groups, err := m.Cloud.NodeGroups(ctx)
	return slices.DeleteFunc(groups, func(g cloudprovider.NodeGroup) bool { return m.unmanaged[g.ID] }), err
}

// provider is the cloud the autoscaler is given: the world's, without
// the scenario's unmanaged groups.
func (w *World) provider() cloudprovider.Provider {
	unmanaged := map[string]bool{}
	for _, g := range w.scn.NodeGroups {
		if g.Unmanaged {
			unmanaged[g.Name] = true
		}
	}
	if len(unmanaged) == 0 {
		return w.cloud
	}
	return managedOnly{Cloud: w.cloud, unmanaged: unmanaged}
}
