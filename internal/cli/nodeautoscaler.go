package cli

import (
	"github.com/spf13/cobra"

	"github.com/kscale/kscale/internal/cloudprovider/providers"
	"github.com/kscale/kscale/internal/nodeautoscaler/live"
	"github.com/kscale/kscale/internal/nodeautoscaler/options"
)

// newNodeAutoscalerFlags returns the node autoscaler's flags with every
// registered cloud provider's.
func newNodeAutoscalerFlags() *live.Flags {
	return live.NewFlags(providers.NewFlags(), providers.Default)
}

// newNodeAutoscalerCommand builds `kscale node-autoscaler`: upstream's
// Kubernetes feature gates are accepted at their defaults only.
func newNodeAutoscalerCommand() *cobra.Command {
	return newComponentCommand("node-autoscaler", "Add and remove nodes per node group of a live cluster, like the Cluster Autoscaler",
		newNodeAutoscalerFlags(), commonSpec{gates: options.KubernetesGates, defaultOnlyGates: true})
}
