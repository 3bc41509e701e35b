package mcm

import (
	"sort"

	"github.com/kscale/kscale/internal/cloudprovider"
)

// Gardener's per-group option annotations on a MachineDeployment, as
// gardener/autoscaler's MCM provider reads them (GetOptions); Gardener
// writes them from the worker pool and leaves unset ones empty.
const (
	ScaleDownUtilizationThresholdAnnotation    = "autoscaler.gardener.cloud/scale-down-utilization-threshold"
	ScaleDownGPUUtilizationThresholdAnnotation = "autoscaler.gardener.cloud/scale-down-gpu-utilization-threshold"
	ScaleDownUnneededTimeAnnotation            = "autoscaler.gardener.cloud/scale-down-unneeded-time"
	ScaleDownUnreadyTimeAnnotation             = "autoscaler.gardener.cloud/scale-down-unready-time"
	MaxNodeProvisionTimeAnnotation             = "autoscaler.gardener.cloud/max-node-provision-time"
)

// optionAnnotations maps each annotation to its option key.
var optionAnnotations = map[string]string{
	ScaleDownUtilizationThresholdAnnotation:    cloudprovider.OptionScaleDownUtilizationThreshold,
	ScaleDownGPUUtilizationThresholdAnnotation: cloudprovider.OptionScaleDownGPUUtilizationThreshold,
	ScaleDownUnneededTimeAnnotation:            cloudprovider.OptionScaleDownUnneededTime,
	ScaleDownUnreadyTimeAnnotation:             cloudprovider.OptionScaleDownUnreadyTime,
	MaxNodeProvisionTimeAnnotation:             cloudprovider.OptionMaxNodeProvisionTime,
}

// groupOptions parses a MachineDeployment's option annotations; empty
// values are unset.
func groupOptions(group string, annotations map[string]string) (cloudprovider.Options, string) {
	var values []cloudprovider.OptionValue
	allowed := make([]string, 0, len(optionAnnotations))
	for ann, key := range optionAnnotations {
		allowed = append(allowed, key)
		if v, ok := annotations[ann]; ok {
			values = append(values, cloudprovider.OptionValue{Key: key, Source: "annotation " + ann, Value: v})
		}
	}
	sort.Strings(allowed)
	sort.Slice(values, func(i, j int) bool { return values[i].Key < values[j].Key })
	return cloudprovider.GroupOptions(group, values, allowed)
}
