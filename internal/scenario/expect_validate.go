package scenario

import (
	"slices"
	"strings"
)

// ActionTypes are the action types expectations may name.
var ActionTypes = []string{"ScaleUp", "DecreaseTargetSize", "DeleteNodes", "EvictPod"}

// EventTypes are the timeline event types an event expectation may name:
// every type the offline world records, its own (scenario events, node
// lifecycle, scheduling, errors) and the autoscaler's (nodeautoscaler
// EventType values). A type the timeline gains is added here.
var EventTypes = []string{
	// Actions.
	"ScaleUp", "DecreaseTargetSize", "DeleteNodes", "EvictPod",
	// Scale-up state and explanations.
	"ScaleUpError", "ScaleUpCompleted", "ScaleUpTimedOut", "ScaleUpFailed",
	"BackoffStarted", "BackoffCleared", "NotTriggerScaleUp",
	// The unready gate.
	"ClusterUnhealthy",
	// Provider configuration.
	"NodeGroupOptionsInvalid",
	// The runaway guard.
	"TemplateMismatch", "TemplateMismatchBlocked", "TemplateMismatchCleared",
	// Scale-down.
	"ScaleDownStarted", "ScaleDownFailed", "ScaleDownBlocked",
	// The world.
	"ScenarioEvent", "NodeRegistered", "NodeReady", "NodeRemoved", "PodScheduled",
	// Failures.
	"LoopError", "EventError", "Error",
}

// expectations lists the expectation kinds for error messages.
const expectations = "action, actions, noActions, group, pendingPods, targetTotal, event, maxUnavailable, zoneNodes"

func (c *checker) expectations(s *Scenario, workloads map[string]string) {
	for i := range s.Expect {
		e := &s.Expect[i]
		e.Line = c.t.line("expect", i)
		set := 0
		for _, b := range []bool{e.Action != nil, e.Actions != nil, e.NoActions != nil, e.Group != nil, e.PendingPods != nil,
			e.TargetTotal != nil, e.Event != nil, e.MaxUnavailable != nil, e.ZoneNodes != nil} {
			if b {
				set++
			}
		}
		at := p("expect", i)
		c.failf(set != 1, at, "expect: set exactly one of %s", expectations)
		c.expectation(e, at, workloads)
	}
}

func (c *checker) expectation(e *Expectation, at []any, workloads map[string]string) {
	f := func(parts ...any) []any { return append(slices.Clone(at), parts...) }
	switch {
	case e.Action != nil:
		c.match(e.Action.ActionMatch, f("action"))
		c.window(e.Action.Window, f("action"))
		c.failf(e.Action.At != nil && (e.Action.From != nil || e.Action.To != nil), f("action"), "expect.action: at excludes from/to")
		c.bounds(e.Action.Bounds, f("action"), "expect.action")
	case e.Actions != nil:
		c.window(e.Actions.Window, f("actions"))
		for j, m := range e.Actions.Exactly {
			c.match(m, f("actions", "exactly", j))
		}
	case e.NoActions != nil:
		c.window(*e.NoActions, f("noActions"))
	case e.Group != nil:
		c.failf(e.Group.Name == "", f("group"), "expect.group: name is required")
		for _, v := range []*int{e.Group.Target, e.Group.Ready, e.Group.Registered} {
			c.failf(v != nil && *v < 0, f("group"), "expect.group: target, ready and registered must not be negative")
		}
	case e.TargetTotal != nil:
		c.failf(len(e.TargetTotal.Groups) == 0 || e.TargetTotal.Max < e.TargetTotal.Min, f("targetTotal"),
			"expect.targetTotal: need groups and min <= max")
	case e.Event != nil:
		c.eventExpectation(e.Event, f("event"))
	case e.MaxUnavailable != nil:
		u := e.MaxUnavailable
		kind, ok := workloads[u.Workload]
		c.failf(!ok, f("maxUnavailable", "workload"), "expect.maxUnavailable: unknown workload %q", u.Workload)
		c.failf(ok && kind == "DaemonSet", f("maxUnavailable", "workload"),
			"expect.maxUnavailable: workload %q is a DaemonSet, which has no desired replicas", u.Workload)
		c.failf(u.AtMost == nil || *u.AtMost < 0, f("maxUnavailable"), "expect.maxUnavailable: atMost is required and must not be negative")
		c.window(u.Window, f("maxUnavailable"))
	case e.ZoneNodes != nil:
		c.failf(e.ZoneNodes.Zone == "", f("zoneNodes"), "expect.zoneNodes: zone is required")
		c.failf(!e.ZoneNodes.IsSet(), f("zoneNodes"), "expect.zoneNodes: set count, atMost or atLeast")
		c.bounds(e.ZoneNodes.Bounds, f("zoneNodes"), "expect.zoneNodes")
	}
}

func (c *checker) eventExpectation(e *EventExpectation, at []any) {
	c.failf(!slices.Contains(EventTypes, e.Type), append(slices.Clone(at), "type"), "expect.event: type: want one of %s, got %q",
		strings.Join(EventTypes, ", "), e.Type)
	c.window(e.Window, at)
	c.failf(e.At != nil && (e.From != nil || e.To != nil), at, "expect.event: at excludes from/to")
	c.bounds(e.Bounds, at, "expect.event")
}

// bounds checks count, atMost and atLeast: not negative, count alone, and
// atLeast <= atMost.
func (c *checker) bounds(b Bounds, at []any, what string) {
	for _, f := range []struct {
		name string
		v    *int
	}{{"count", b.Count}, {"atMost", b.AtMost}, {"atLeast", b.AtLeast}} {
		c.failf(f.v != nil && *f.v < 0, append(slices.Clone(at), f.name), "%s: %s must not be negative", what, f.name)
	}
	c.failf(b.Count != nil && (b.AtMost != nil || b.AtLeast != nil), append(slices.Clone(at), "count"),
		"%s: count excludes atMost and atLeast", what)
	if b.AtMost != nil && b.AtLeast != nil {
		c.failf(*b.AtLeast > *b.AtMost, append(slices.Clone(at), "atLeast"), "%s: atLeast %d is above atMost %d", what, *b.AtLeast, *b.AtMost)
	}
}

func (c *checker) match(m ActionMatch, at []any) {
	c.failf(!slices.Contains(ActionTypes, m.Type), append(at, "type"), "type: want one of %v, got %q", ActionTypes, m.Type)
}

func (c *checker) window(w Window, at []any) {
	c.failf(w.From != nil && w.To != nil && w.To.Duration < w.From.Duration, at, "window: to is before from")
}
