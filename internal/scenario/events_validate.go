package scenario

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/inmemory"
)

// eventState tracks names through the event list so events may refer to
// groups added or removed by earlier events.
type eventState struct {
	groups    map[string]bool
	workloads map[string]string
}

func (c *checker) events(s *Scenario, groups map[string]bool, workloads map[string]string) {
	st := eventState{groups: map[string]bool{}, workloads: workloads}
	for g := range groups {
		st.groups[g] = true
	}
	for i := range s.Events {
		e := &s.Events[i]
		at := p("events", i)
		c.failf(e.At.Duration < 0 || e.At.Duration > s.Duration.Duration, append(at, "at"), "events.at: %v is outside [0, duration]", e.At.Duration)
		if i > 0 {
			prev := s.Events[i-1].At.Duration
			c.failf(e.At.Duration < prev, append(at, "at"), "events: must be in time order (%v after %v)", e.At.Duration, prev)
		}
		c.failf(countActions(e) != 1, at, "events: set exactly one action (addPods, removePods, scaleWorkload, changeGroup, addGroup, removeGroup, setTarget, addInstance, removeInstance, taintNode, untaintNode, annotateNode, unannotateNode, setCloudError, clearCloudError, restartAutoscaler)")
		c.event(e, at, &st)
	}
}

func countActions(e *Event) int {
	n := 0
	for _, b := range []bool{e.AddPods != nil, e.RemovePods != nil, e.ScaleWorkload != nil, e.ChangeGroup != nil,
		e.AddGroup != nil, e.RemoveGroup != "", e.SetTarget != nil, e.AddInstance != nil, e.RemoveInstance != nil,
		e.TaintNode != nil, e.UntaintNode != nil, e.AnnotateNode != nil, e.UnannotateNode != nil, e.SetCloudError != nil, e.ClearCloudError != "", e.RestartAutoscaler} {
		if b {
			n++
		}
	}
	return n
}

func (c *checker) event(e *Event, at []any, st *eventState) {
	group := func(name string, field string) {
		c.failf(!st.groups[name], append(slices.Clone(at), field), "events: unknown node group %q", name)
	}
	workload := func(pc *PodCount, field string) {
		_, ok := st.workloads[pc.Workload]
		c.failf(!ok, append(slices.Clone(at), field), "events: unknown workload %q", pc.Workload)
		c.failf(pc.Count < 0, append(slices.Clone(at), field), "events: count must not be negative")
	}
	switch {
	case e.AddPods != nil:
		workload(e.AddPods, "addPods")
	case e.RemovePods != nil:
		workload(e.RemovePods, "removePods")
	case e.ScaleWorkload != nil:
		workload(e.ScaleWorkload, "scaleWorkload")
	case e.ChangeGroup != nil:
		group(e.ChangeGroup.Name, "changeGroup")
		c.entryProblems(e.ChangeGroup.RealNodes.Problems(), append(slices.Clone(at), "changeGroup", "realNodes"))
	case e.AddGroup != nil:
		c.nodeGroup(e.AddGroup, append(slices.Clone(at), "addGroup"), st.groups)
	case e.RemoveGroup != "":
		group(e.RemoveGroup, "removeGroup")
		delete(st.groups, e.RemoveGroup)
	case e.SetTarget != nil:
		group(e.SetTarget.Group, "setTarget")
	case e.AddInstance != nil:
		group(e.AddInstance.Group, "addInstance")
		c.failf((e.AddInstance.NotReady || len(e.AddInstance.Taints.Value) > 0) && e.AddInstance.Name == "",
			append(slices.Clone(at), "addInstance"), "addInstance: notReady and taints need a name")
	case e.RemoveInstance != nil:
		group(e.RemoveInstance.Group, "removeInstance")
	case e.SetCloudError != nil:
		group(e.SetCloudError.Group, "setCloudError")
		c.entryProblems(e.SetCloudError.Problems(), append(slices.Clone(at), "setCloudError"))
	case e.ClearCloudError != "":
		group(e.ClearCloudError, "clearCloudError")
	case e.TaintNode != nil:
		c.taint(e.TaintNode, append(slices.Clone(at), "taintNode"))
	case e.UntaintNode != nil:
		c.failf(e.UntaintNode.Node == "" || e.UntaintNode.Key == "", append(slices.Clone(at), "untaintNode"), "untaintNode: node and key are required")
	case e.AnnotateNode != nil:
		c.annotation(e.AnnotateNode, append(slices.Clone(at), "annotateNode"), "annotateNode")
	case e.UnannotateNode != nil:
		c.annotation(e.UnannotateNode, append(slices.Clone(at), "unannotateNode"), "unannotateNode")
	}
}

func (c *checker) annotation(a *NodeAnnotation, at []any, field string) {
	c.failf(a.Node == "" || a.Key == "", at, "%s: node and key are required", field)
	if a.Key != "" {
		errs := validation.IsQualifiedName(a.Key)
		c.failf(len(errs) > 0, append(at, "key"), "%s: key %q is not a valid annotation key: %s", field, a.Key, strings.Join(errs, "; "))
	}
}

func (c *checker) taint(t *NodeTaint, at []any) {
	c.failf(t.Node == "" || t.Key == "", at, "taintNode: node and key are required")
	if t.Effect == "" {
		t.Effect = corev1.TaintEffectNoSchedule
	}
	ok := slices.Contains([]corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute}, t.Effect)
	c.failf(!ok, append(at, "effect"), "taintNode: effect must be NoSchedule, PreferNoSchedule or NoExecute, got %q", t.Effect)
}

// Problems returns the invalid fields of the event.
func (e *GroupError) Problems() []inmemory.EntryProblem {
	out := e.CloudError.Problems()
	switch e.Call {
	case "", CallCreate:
	case CallIncrease:
		if e.Class == string(cloudprovider.ErrorOutOfResources) {
			out = append(out, inmemory.EntryProblem{Path: []any{"class"},
				Msg: "class: a failing increase call is a cloud API error, class other; out-of-resources needs call: create"})
		}
	default:
		out = append(out, inmemory.EntryProblem{Path: []any{"call"}, Msg: fmt.Sprintf("call: want create or increase, got %q", e.Call)})
	}
	return out
}
