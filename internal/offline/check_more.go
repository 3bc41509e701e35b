package offline

import (
	"fmt"
	"strings"
	"time"

	"github.com/kscale/kscale/internal/scenario"
)

// countCheck is the check that n matches of what are within b; unset
// bounds mean at least one. An exact count reads "2 × what", as before
// atMost and atLeast existed.
func countCheck(what string, b scenario.Bounds, n int) Check {
	switch {
	case !b.IsSet():
		return Check{What: what, OK: n > 0}
	case b.Count != nil:
		return Check{What: fmt.Sprintf("%d × %s", *b.Count, what), OK: n == *b.Count}
	}
	return Check{What: fmt.Sprintf("%s × %s", b, what), OK: b.Holds(n)}
}

// checkEvent counts the timeline events of a type, group and reason.
func (r *Result) checkEvent(e scenario.EventExpectation, end time.Duration) Check {
	from, to := window(e.Window, end)
	if e.At != nil {
		from, to = e.At.Duration, e.At.Duration
	}
	var got []Event
	for _, ev := range r.Events {
		if ev.At >= from && ev.At <= to && eventMatches(e, ev) {
			got = append(got, ev)
		}
	}
	what := e.Type
	if e.Group != "" {
		what += " " + e.Group
	}
	if e.Reason != "" {
		what += fmt.Sprintf(" %q", e.Reason)
	}
	c := countCheck(fmt.Sprintf("event %s in [%v, %v]", what, from, to), e.Bounds, len(got))
	if !c.OK {
		c.Detail = fmt.Sprintf("%d matching", len(got))
		if len(got) > 0 {
			c.Detail += ": " + formatEvents(got, 5)
		}
	}
	return c
}

func eventMatches(e scenario.EventExpectation, ev Event) bool {
	if ev.Type != e.Type || (e.Group != "" && ev.Group != e.Group) {
		return false
	}
	return e.Reason == "" || strings.Contains(ev.Reason, e.Reason) || strings.Contains(ev.Message, e.Reason)
}

// formatEvents renders up to limit events with their reasons.
func formatEvents(es []Event, limit int) string {
	parts := make([]string, 0, min(len(es), limit)+1)
	for i, e := range es {
		if i == limit {
			parts = append(parts, fmt.Sprintf("... (%d more)", len(es)-limit))
			break
		}
		s := fmt.Sprintf("%v %s", e.At, e.Type)
		if e.Group != "" {
			s += " " + e.Group
		}
		if e.Reason != "" || e.Message != "" {
			s += ": " + strings.TrimSpace(e.Reason+" "+e.Message)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// checkUnavailable takes the largest number of a workload's unavailable
// pods over the window: the state in effect at its start (the last tick at
// or before it) and every tick within it.
func (r *Result) checkUnavailable(u scenario.UnavailableExpectation, end time.Duration) Check {
	from, to := window(u.Window, end)
	worst, worstAt := 0, time.Duration(-1)
	if s, ok := r.sampleAt(from); ok {
		worst, worstAt = s.Unavailable[u.Workload], s.At
	}
	for _, s := range r.Samples {
		if s.At <= from || s.At > to {
			continue
		}
		if n := s.Unavailable[u.Workload]; n > worst {
			worst, worstAt = n, s.At
		}
	}
	c := Check{What: fmt.Sprintf("at most %d unavailable pod(s) of %s in [%v, %v]", *u.AtMost, u.Workload, from, to),
		OK: worst <= *u.AtMost}
	if !c.OK {
		c.Detail = fmt.Sprintf("%d unavailable at %v", worst, worstAt)
	}
	return c
}

// checkZone counts the nodes in a zone after the tick at the time.
func (r *Result) checkZone(z scenario.ZoneExpectation, end time.Duration) Check {
	t := at(z.At, end)
	s, _ := r.sampleAt(t)
	n := s.Zones[z.Zone]
	c := Check{What: fmt.Sprintf("nodes in zone %s at %v %s", z.Zone, t, z.Bounds), OK: z.Holds(n)}
	if !c.OK {
		c.Detail = fmt.Sprintf("got %d", n)
	}
	return c
}
