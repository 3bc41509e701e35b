package offline

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kscale/kscale/internal/scenario"
)

// Check is the outcome of one expectation.
type Check struct {
	// Line is the expectation's line in the scenario file.
	Line int `json:"line"`
	// What describes the expectation.
	What string `json:"what"`
	// OK is true when it held.
	OK bool `json:"ok"`
	// Detail explains a failure.
	Detail string `json:"detail,omitempty"`
}

// Checks evaluates the scenario's expectations against the result. Loop
// and event errors always count as a failed check.
func (r *Result) Checks(scn *scenario.Scenario) []Check {
	out := make([]Check, 0, len(scn.Expect)+1)
	if r.Final.LoopErrors > 0 {
		out = append(out, Check{What: "every loop and event succeeds", Detail: fmt.Sprintf("%d failed", r.Final.LoopErrors)})
	}
	for _, e := range scn.Expect {
		c := r.check(e, scn.Duration.Duration)
		c.Line = e.Line
		out = append(out, c)
	}
	return out
}

func (r *Result) check(e scenario.Expectation, end time.Duration) Check {
	switch {
	case e.Action != nil:
		return r.checkAction(*e.Action, end)
	case e.Actions != nil:
		return r.checkActions(*e.Actions, end)
	case e.NoActions != nil:
		from, to := window(*e.NoActions, end)
		got := r.actions(from, to)
		c := Check{What: fmt.Sprintf("no actions in [%v, %v]", from, to), OK: len(got) == 0}
		if !c.OK {
			c.Detail = "got " + formatActions(got)
		}
		return c
	case e.Group != nil:
		return r.checkGroup(*e.Group, end)
	case e.TargetTotal != nil:
		t := at(e.TargetTotal.At, end)
		s, _ := r.sampleAt(t)
		sum := 0
		for _, g := range e.TargetTotal.Groups {
			sum += s.Groups[g].Target
		}
		c := Check{What: fmt.Sprintf("target of %s at %v within [%d, %d]", strings.Join(e.TargetTotal.Groups, "+"), t, e.TargetTotal.Min, e.TargetTotal.Max),
			OK: sum >= e.TargetTotal.Min && sum <= e.TargetTotal.Max}
		if !c.OK {
			c.Detail = fmt.Sprintf("got %d", sum)
		}
		return c
	case e.Event != nil:
		return r.checkEvent(*e.Event, end)
	case e.MaxUnavailable != nil:
		return r.checkUnavailable(*e.MaxUnavailable, end)
	case e.ZoneNodes != nil:
		return r.checkZone(*e.ZoneNodes, end)
	case e.PendingPods != nil:
		at := at(e.PendingPods.At, end)
		s, _ := r.sampleAt(at)
		c := Check{What: fmt.Sprintf("%d pending pod(s) at %v", e.PendingPods.Count, at), OK: s.Pending == e.PendingPods.Count}
		if !c.OK {
			c.Detail = fmt.Sprintf("got %d", s.Pending)
		}
		return c
	}
	return Check{What: "empty expectation"}
}

func (r *Result) checkAction(a scenario.ActionExpectation, end time.Duration) Check {
	from, to := window(a.Window, end)
	if a.At != nil {
		from, to = a.At.Duration, a.At.Duration
	}
	var n int
	for _, ev := range r.actions(from, to) {
		if matches(a.ActionMatch, ev) {
			n++
		}
	}
	c := countCheck(fmt.Sprintf("%s in [%v, %v]", formatMatch(a.ActionMatch), from, to), a.Bounds, n)
	if !c.OK {
		c.Detail = fmt.Sprintf("%d matching; actions in window: %s", n, formatActions(r.actions(from, to)))
	}
	return c
}

func (r *Result) checkActions(a scenario.ActionList, end time.Duration) Check {
	from, to := window(a.Window, end)
	got := r.actions(from, to)
	var want []string
	for _, m := range a.Exactly {
		want = append(want, formatMatch(m))
	}
	c := Check{What: fmt.Sprintf("exactly [%s] in [%v, %v]", strings.Join(want, ", "), from, to), OK: len(got) == len(a.Exactly)}
	for i := 0; c.OK && i < len(got); i++ {
		c.OK = matches(a.Exactly[i], got[i])
	}
	if !c.OK {
		c.Detail = "got " + formatActions(got)
	}
	return c
}

func (r *Result) checkGroup(g scenario.GroupExpectation, end time.Duration) Check {
	t := at(g.At, end)
	s, ok := r.sampleAt(t)
	gs, found := s.Groups[g.Name]
	var want, got []string
	if g.Target != nil {
		want, got = append(want, fmt.Sprintf("target %d", *g.Target)), append(got, fmt.Sprintf("target %d", gs.Target))
	}
	if g.BackedOff != nil {
		want, got = append(want, fmt.Sprintf("backedOff %v", *g.BackedOff)), append(got, fmt.Sprintf("backedOff %v", gs.BackedOff))
	}
	if g.Ready != nil {
		want, got = append(want, fmt.Sprintf("ready %d", *g.Ready)), append(got, fmt.Sprintf("ready %d", gs.Ready))
	}
	if g.Registered != nil {
		want, got = append(want, fmt.Sprintf("registered %d", *g.Registered)), append(got, fmt.Sprintf("registered %d", gs.Nodes))
	}
	c := Check{What: fmt.Sprintf("group %s at %v: %s", g.Name, t, strings.Join(want, ", ")), OK: ok && found && slices.Equal(want, got)}
	if !c.OK {
		c.Detail = "got " + strings.Join(got, ", ")
		if !found {
			c.Detail = "group not present"
		}
	}
	return c
}

// actions returns the actions in [from, to].
func (r *Result) actions(from, to time.Duration) []Event {
	var out []Event
	for _, e := range r.Events {
		if e.IsAction() && e.At >= from && e.At <= to {
			out = append(out, e)
		}
	}
	return out
}

func matches(m scenario.ActionMatch, e Event) bool {
	if m.Type != e.Type || (m.Group != "" && m.Group != e.Group) || (m.Delta != nil && *m.Delta != e.Delta) {
		return false
	}
	return m.Nodes == nil || slices.Equal(m.Nodes, e.Nodes)
}

func window(w scenario.Window, end time.Duration) (time.Duration, time.Duration) {
	from, to := time.Duration(0), end
	if w.From != nil {
		from = w.From.Duration
	}
	if w.To != nil {
		to = w.To.Duration
	}
	return from, to
}

func at(d *scenario.Duration, end time.Duration) time.Duration {
	if d == nil {
		return end
	}
	return d.Duration
}

func formatMatch(m scenario.ActionMatch) string {
	s := m.Type
	if m.Group != "" {
		s += " " + m.Group
	}
	if m.Delta != nil {
		s += fmt.Sprintf(" %+d", *m.Delta)
	}
	if m.Nodes != nil {
		s += " [" + strings.Join(m.Nodes, " ") + "]"
	}
	return s
}

// FormatAction renders an action as "7m10s ScaleUp ng-2 +2".
func FormatAction(e Event) string {
	s := fmt.Sprintf("%v %s %s %+d", e.At, e.Type, e.Group, e.Delta)
	if len(e.Nodes) > 0 && e.Type != "ScaleUp" {
		s += " [" + strings.Join(e.Nodes, " ") + "]"
	}
	return s
}

func formatActions(es []Event) string {
	if len(es) == 0 {
		return "none"
	}
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = FormatAction(e)
	}
	return strings.Join(parts, "; ")
}
