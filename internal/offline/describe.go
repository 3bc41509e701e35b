package offline

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/scenario"
)

// tagsOf recovers labels and taints from a template's tags.
func tagsOf(t cloudprovider.Template) (map[string]string, []corev1.Taint) {
	labels := map[string]string{}
	var taints []corev1.Taint
	for k, v := range t.Tags {
		if l, ok := strings.CutPrefix(k, cloudprovider.TagLabelPrefix); ok {
			labels[l] = v
		}
		if key, ok := strings.CutPrefix(k, cloudprovider.TagTaintPrefix); ok {
			val, eff, _ := strings.Cut(v, ":")
			taints = append(taints, corev1.Taint{Key: key, Value: val, Effect: corev1.TaintEffect(eff)})
		}
	}
	return labels, taints
}

// describe renders a scenario event for the timeline.
func describe(e scenario.Event) string {
	switch {
	case e.AddPods != nil:
		return fmt.Sprintf("add %d pod(s) to %s", e.AddPods.Count, e.AddPods.Workload)
	case e.RemovePods != nil:
		return fmt.Sprintf("remove %d pod(s) from %s", e.RemovePods.Count, e.RemovePods.Workload)
	case e.ScaleWorkload != nil:
		return fmt.Sprintf("scale %s to %d", e.ScaleWorkload.Workload, e.ScaleWorkload.Count)
	case e.ChangeGroup != nil:
		return "change node group " + e.ChangeGroup.Name
	case e.AddGroup != nil:
		return "add node group " + e.AddGroup.Name
	case e.RemoveGroup != "":
		return "remove node group " + e.RemoveGroup
	case e.SetTarget != nil:
		return fmt.Sprintf("set target of %s to %d", e.SetTarget.Group, e.SetTarget.Target)
	case e.AddInstance != nil:
		return fmt.Sprintf("add instance %s to %s", e.AddInstance.Name, e.AddInstance.Group)
	case e.RemoveInstance != nil:
		return fmt.Sprintf("remove instance %s from %s", e.RemoveInstance.Name, e.RemoveInstance.Group)
	case e.TaintNode != nil:
		return fmt.Sprintf("taint node %s with %s", e.TaintNode.Node, e.TaintNode.Key)
	case e.UntaintNode != nil:
		return fmt.Sprintf("remove taint %s from node %s", e.UntaintNode.Key, e.UntaintNode.Node)
	case e.AnnotateNode != nil:
		return fmt.Sprintf("annotate node %s with %s", e.AnnotateNode.Node, e.AnnotateNode.Key)
	case e.UnannotateNode != nil:
		return fmt.Sprintf("remove annotation %s from node %s", e.UnannotateNode.Key, e.UnannotateNode.Node)
	case e.SetCloudError != nil:
		call := "instance creation"
		if e.SetCloudError.Call == scenario.CallIncrease {
			call = "increase calls"
		}
		return fmt.Sprintf("cloud error on %s (%s): %s %s", e.SetCloudError.Group, call, e.SetCloudError.Code, e.SetCloudError.Message)
	case e.ClearCloudError != "":
		return "clear cloud error on " + e.ClearCloudError
	case e.RestartAutoscaler:
		return "restart the autoscaler"
	}
	return "nothing"
}
