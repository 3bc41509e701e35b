package clusterapi

import (
	"context"
	"strings"

	"github.com/kscale/kscale/internal/cloudprovider"
)

// optionKeys are the options kscale takes from a scalable resource's
// <group>/autoscaling-options-<key> annotations: upstream's list
// (nodegroup GetOptions).
var optionKeys = []string{
	cloudprovider.OptionScaleDownUtilizationThreshold, cloudprovider.OptionScaleDownGPUUtilizationThreshold,
	cloudprovider.OptionScaleDownUnneededTime, cloudprovider.OptionScaleDownUnreadyTime,
	cloudprovider.OptionMaxNodeProvisionTime, cloudprovider.OptionMaxNodeStartupTime,
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

// reportIgnored logs, once per resource, the capacity annotations kscale
// reads upstream's names of but cannot use: DRA devices and CSI attach
// limits of a template (kscale's simulator models neither, so templates
// carry no ResourceSlices or CSINode).
func (p *Provider) reportIgnored(ctx context.Context, r *scalable) {
	var found []string
	for _, a := range []string{DRADriverAnnotation, CSIDriverAnnotation} {
		if _, ok := r.annotations[a]; ok {
			found = append(found, a)
		}
	}
	key := r.id() + "|" + strings.Join(found, ",")
	if len(found) == 0 || p.ignored[key] {
		return
	}
	p.ignored[key] = true
	logFrom(ctx).Info("Ignoring capacity annotations kscale does not simulate", "group", r.id(), "annotations", found)
}
