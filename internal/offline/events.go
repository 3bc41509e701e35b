package offline

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/inmemory"
	"github.com/kscale/kscale/internal/scenario"
)

// apply carries out one scenario event.
func (w *World) apply(e scenario.Event) error {
	w.emit(Event{Type: "ScenarioEvent", Message: describe(e)})
	switch {
	case e.AddPods != nil:
		return w.changeReplicas(e.AddPods.Workload, func(n int) int { return n + e.AddPods.Count })
	case e.RemovePods != nil:
		return w.changeReplicas(e.RemovePods.Workload, func(n int) int { return max(0, n-e.RemovePods.Count) })
	case e.ScaleWorkload != nil:
		return w.changeReplicas(e.ScaleWorkload.Workload, func(int) int { return e.ScaleWorkload.Count })
	case e.ChangeGroup != nil:
		return w.changeGroup(*e.ChangeGroup)
	case e.AddGroup != nil:
		return w.addGroup(*e.AddGroup)
	case e.RemoveGroup != "":
		return w.cloud.RemoveGroup(e.RemoveGroup)
	case e.SetTarget != nil:
		return w.cloud.SetTargetSize(e.SetTarget.Group, e.SetTarget.Target)
	case e.AddInstance != nil:
		return w.addInstance(*e.AddInstance)
	case e.RemoveInstance != nil:
		return w.cloud.RemoveInstance(e.RemoveInstance.Group, e.RemoveInstance.Name, e.RemoveInstance.ChangeTarget)
	case e.TaintNode != nil:
		t := e.TaintNode
		return w.taint(t.Node, corev1.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect})
	case e.UntaintNode != nil:
		return w.untaint(e.UntaintNode.Node, e.UntaintNode.Key)
	case e.AnnotateNode != nil:
		return w.annotate(e.AnnotateNode.Node, e.AnnotateNode.Key, e.AnnotateNode.Value, true)
	case e.UnannotateNode != nil:
		return w.annotate(e.UnannotateNode.Node, e.UnannotateNode.Key, "", false)
	case e.SetCloudError != nil:
		return w.setCloudError(*e.SetCloudError)
	case e.ClearCloudError != "":
		if err := w.cloud.SetAPIError(e.ClearCloudError, nil); err != nil {
			return err
		}
		return w.cloud.ClearCreationError(e.ClearCloudError)
	case e.RestartAutoscaler:
		return w.restart()
	}
	return fmt.Errorf("event at %v has no action", e.At.Duration)
}

func (w *World) changeReplicas(name string, f func(int) int) error {
	wl, ok := w.byName[name]
	if !ok {
		return fmt.Errorf("unknown workload %q", name)
	}
	wl.replicas = f(wl.replicas)
	w.replicasChanged = true
	return nil
}

func (w *World) changeGroup(c scenario.GroupChange) error {
	if c.RealNodes != nil {
		w.realNodes[c.Name] = c.RealNodes
	}
	return w.cloud.UpdateGroup(c.Name, func(cfg *inmemory.GroupConfig) {
		if c.Min != nil {
			cfg.MinSize = *c.Min
		}
		if c.Max != nil {
			cfg.MaxSize = *c.Max
		}
		if len(c.InstanceTypes) > 0 || len(c.Resources) > 0 {
			labels, taints := tagsOf(cfg.Template)
			if t, err := inmemory.TemplateOf(inmemory.TemplateSpec{Group: c.Name, InstanceTypes: c.InstanceTypes, Resources: c.Resources.List(),
				Zone: first(cfg.Template.Zones), Labels: labels, Taints: taints}); err == nil {
				cfg.Template.InstanceTypes = t.InstanceTypes
			}
		}
		if c.Labels != nil || c.Taints != nil {
			labels, taints := tagsOf(cfg.Template)
			if c.Labels != nil {
				labels = c.Labels
			}
			if c.Taints != nil {
				taints = c.Taints.Value
			}
			t, _ := inmemory.TemplateOf(inmemory.TemplateSpec{Group: c.Name, Labels: labels, Taints: taints})
			cfg.Template.Tags = t.Tags
		}
		if c.BootTime != nil {
			cfg.BootTime = c.BootTime.Duration
		}
		if c.Capacity != nil {
			cfg.Capacity = c.Capacity.Limit
		}
	})
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

func (w *World) addInstance(c scenario.InstanceChange) error {
	name := c.Name
	if err := w.cloud.AddInstance(c.Group, name, c.ChangeTarget, c.BootTime.Duration); err != nil {
		return err
	}
	if c.NotReady && name != "" {
		w.notReady[name] = true
	}
	if len(c.Taints.Value) > 0 && name != "" {
		w.startTaints[name] = c.Taints.Value
	}
	return nil
}

func (w *World) taint(node string, taints ...corev1.Taint) error {
	n, ok := w.cluster.nodes[node]
	if !ok {
		return fmt.Errorf("tainting node %q: no such node", node)
	}
	c := n.DeepCopy()
	for _, t := range taints {
		c.Spec.Taints = slices.DeleteFunc(c.Spec.Taints, func(x corev1.Taint) bool { return x.Key == t.Key })
		c.Spec.Taints = append(c.Spec.Taints, t)
	}
	w.cluster.addNode(c)
	return nil
}

func (w *World) untaint(node, key string) error {
	n, ok := w.cluster.nodes[node]
	if !ok {
		return fmt.Errorf("untainting node %q: no such node", node)
	}
	c := n.DeepCopy()
	c.Spec.Taints = slices.DeleteFunc(c.Spec.Taints, func(x corev1.Taint) bool { return x.Key == key })
	w.cluster.addNode(c)
	return nil
}

// annotate sets (or, when set is false, removes) a node annotation.
func (w *World) annotate(node, key, value string, set bool) error {
	n, ok := w.cluster.nodes[node]
	if !ok {
		return fmt.Errorf("annotating node %q: no such node", node)
	}
	c := n.DeepCopy()
	if set {
		if c.Annotations == nil {
			c.Annotations = map[string]string{}
		}
		c.Annotations[key] = value
	} else {
		delete(c.Annotations, key)
	}
	w.cluster.addNode(c)
	return nil
}

// setCloudError makes the group's instance creation or its increase calls
// fail, as the event's call says.
func (w *World) setCloudError(e scenario.GroupError) error {
	info := e.Info(cloudprovider.ErrorOther)
	if e.Call == scenario.CallIncrease {
		return w.cloud.SetAPIError(e.Group, fmt.Errorf("%s: %s", info.Code, info.Message))
	}
	return w.cloud.SetCreationError(e.Group, info)
}
