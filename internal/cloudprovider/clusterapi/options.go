package clusterapi

import (
	"strings"

	"github.com/kscale/kscale/internal/cloudprovider"
)

// optionKeys are the options kscale takes from a scalable resource's
// <group>/autoscaling-options-<key> annotations: upstream's list
// (nodegroup GetOptions) without maxnodestartuptime, which kscale applies
// only globally (--max-node-startup-time); that key is reported as
// unsupported.
var optionKeys = []string{
	cloudprovider.OptionScaleDownUtilizationThreshold, cloudprovider.OptionScaleDownGPUUtilizationThreshold,
	cloudprovider.OptionScaleDownUnneededTime, cloudprovider.OptionScaleDownUnreadyTime,
	cloudprovider.OptionMaxNodeProvisionTime,
}

// options parses the resource's option annotations; values are
// lower-cased as upstream does.
func (r *scalable) options(n Names) (cloudprovider.Options, string) {
	values := cloudprovider.PrefixedOptions(r.annotations, n.OptionsPrefix, "annotation")
	for i := range values {
		values[i].Value = strings.ToLower(values[i].Value)
	}
	return cloudprovider.GroupOptions(r.id(), values, optionKeys)
}
