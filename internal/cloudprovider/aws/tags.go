package aws

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kscale/kscale/internal/cloudprovider"
)

// LabelEBSZone is the EBS CSI driver's zone label, which upstream's AWS
// templates set to the group's first zone.
const LabelEBSZone = "topology.ebs.csi.aws.com/zone"

// eksTagPrefix marks EKS tags; upstream turns `eks:<x>` into label <x>.
const eksTagPrefix = "eks:"

// templateTags turns an ASG's tags into the template's tag map: every tag
// passes through except node-template taint and resource tags upstream
// would ignore (a taint value that is not <value>:<effect>, a resource
// that is not a quantity), which are dropped and reported; `eks:<x>` tags
// and the first zone add label tags unless a label tag sets them.
func templateTags(tags map[string]string, zones []string) (map[string]string, []error) {
	out := make(map[string]string, len(tags)+2)
	var dropped []error
	for k, v := range tags {
		if err := checkTemplateTag(k, v); err != nil {
			dropped = append(dropped, err)
			continue
		}
		out[k] = v
	}
	for k, v := range tags {
		if label, ok := strings.CutPrefix(k, eksTagPrefix); ok && label != "" {
			setDefault(out, cloudprovider.TagLabelPrefix+label, v)
		}
	}
	if len(zones) > 0 {
		setDefault(out, cloudprovider.TagLabelPrefix+LabelEBSZone, zones[0])
	}
	return out, dropped
}

func setDefault(m map[string]string, k, v string) {
	if _, ok := m[k]; !ok {
		m[k] = v
	}
}

// checkTemplateTag validates one node-template tag; other tags are fine.
func checkTemplateTag(k, v string) error {
	switch {
	case strings.HasPrefix(k, cloudprovider.TagLabelPrefix):
		if strings.TrimPrefix(k, cloudprovider.TagLabelPrefix) == "" {
			return fmt.Errorf("tag %q: empty label key", k)
		}
	case strings.HasPrefix(k, cloudprovider.TagTaintPrefix):
		if strings.TrimPrefix(k, cloudprovider.TagTaintPrefix) == "" {
			return fmt.Errorf("tag %q: empty taint key", k)
		}
		if _, effect, ok := strings.Cut(v, ":"); !ok || !validEffect(effect) {
			return fmt.Errorf("tag %q: value %q is not <value>:<NoSchedule|PreferNoSchedule|NoExecute>", k, v)
		}
	case strings.HasPrefix(k, cloudprovider.TagResourcePrefix):
		if strings.TrimPrefix(k, cloudprovider.TagResourcePrefix) == "" {
			return fmt.Errorf("tag %q: empty resource name", k)
		}
		if _, err := resource.ParseQuantity(v); err != nil {
			return fmt.Errorf("tag %q: value %q is not a quantity", k, v)
		}
	}
	return nil
}

func validEffect(e string) bool {
	switch corev1.TaintEffect(e) {
	case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		return true
	}
	return false
}

// OptionsTagPrefix starts the tags of a group's own autoscaling options,
// as upstream reads them: the rest of the key is the option.
const OptionsTagPrefix = "k8s.io/cluster-autoscaler/node-template/autoscaling-options/"

// optionKeys are the options upstream's AWS provider reads from tags
// (GetAsgOptions).
var optionKeys = []string{
	cloudprovider.OptionScaleDownUtilizationThreshold, cloudprovider.OptionScaleDownGPUUtilizationThreshold,
	cloudprovider.OptionScaleDownUnneededTime, cloudprovider.OptionScaleDownUnreadyTime,
	cloudprovider.OptionIgnoreDaemonSetsUtilization,
}

// groupOptions parses the group's option tags.
func groupOptions(name string, tags map[string]string) (cloudprovider.Options, string) {
	return cloudprovider.GroupOptions(name, cloudprovider.PrefixedOptions(tags, OptionsTagPrefix, "tag"), optionKeys)
}

// GPULabel is the label of GPU nodes upstream's AWS provider names (its
// GPULabel).
const GPULabel = "k8s.amazonaws.com/accelerator"
