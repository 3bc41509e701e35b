package offline

import (
	"context"
	"slices"

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
// namespaces, volumes or storage objects, and every pod belongs to a
// workload that exists, so those parts are empty and every controller is
// found.
func (c worldCluster) View(context.Context) (*nodeautoscaler.View, error) {
	cl := c.w.cluster
	return &nodeautoscaler.View{Nodes: cl.nodeList(), Pods: cl.index, DaemonSets: slices.Clone(cl.daemonSets),
		PDBs: c.w.pdbs(), Controllers: scaledown.EveryControllerExists{}}, nil
}
