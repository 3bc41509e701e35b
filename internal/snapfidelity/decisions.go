package snapfidelity

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/kscale/kscale/internal/nodeautoscaler"
	"github.com/kscale/kscale/internal/offline"
)

// Decisions are what one loop decided: the compared part.
type Decisions struct {
	// ScaleUp is the nodes added per group.
	ScaleUp map[string]int
	// Unneeded is the nodes found unneeded per group.
	Unneeded map[string]int
	// Unremovable is the reason per node scale-down may not remove.
	Unremovable map[string]string
	// Removed are the nodes whose removal began, sorted.
	Removed []string
}

// event is the part of a loop event the decisions are made of, from the
// live loop's nodeautoscaler.Event or the simulation's offline.Event.
type event struct {
	typ, group, reason string
	delta              int
	nodes              []string
}

func decisionsOf(events []event, unneeded map[string]int) Decisions {
	d := Decisions{ScaleUp: map[string]int{}, Unneeded: map[string]int{}, Unremovable: map[string]string{}}
	for g, n := range unneeded {
		if n > 0 {
			d.Unneeded[g] = n
		}
	}
	for _, e := range events {
		switch nodeautoscaler.EventType(e.typ) {
		case nodeautoscaler.EventScaleUp:
			d.ScaleUp[e.group] += e.delta
		case nodeautoscaler.EventScaleDownStarted:
			d.Removed = append(d.Removed, e.nodes...)
		case nodeautoscaler.EventScaleDownBlocked:
			for _, n := range e.nodes {
				d.Unremovable[n] = e.reason
			}
		}
	}
	slices.Sort(d.Removed)
	return d
}

// Recorder collects the live loop's events; it is the loop's
// nodeautoscaler.Recorder.
type Recorder struct {
	mu     sync.Mutex
	events []event
}

// Record implements nodeautoscaler.Recorder.
func (r *Recorder) Record(_ context.Context, e nodeautoscaler.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, event{typ: string(e.Type), group: e.Group, reason: e.Reason, delta: e.Delta, nodes: slices.Clone(e.Nodes)})
}

// Decisions are the recorded events' decisions with the loop's unneeded
// nodes per group.
func (r *Recorder) Decisions(unneeded map[string]int) Decisions {
	r.mu.Lock()
	defer r.mu.Unlock()
	return decisionsOf(r.events, unneeded)
}

// SimulatedDecisions are the decisions of the simulation's first loop.
func SimulatedDecisions(res *offline.Result) Decisions {
	var events []event
	for _, e := range res.Events {
		if e.At == 0 {
			events = append(events, event{typ: e.Type, group: e.Group, reason: e.Reason, delta: e.Delta, nodes: e.Nodes})
		}
	}
	unneeded := map[string]int{}
	if len(res.Samples) > 0 {
		for g, s := range res.Samples[0].Groups {
			unneeded[g] = s.Unneeded
		}
	}
	return decisionsOf(events, unneeded)
}

// Diff lists how sim differs from live, one line per difference; none
// when they agree.
func Diff(live, sim Decisions) []string {
	var out []string
	out = append(out, diffMap("scale-up of group", live.ScaleUp, sim.ScaleUp)...)
	out = append(out, diffMap("unneeded nodes of group", live.Unneeded, sim.Unneeded)...)
	out = append(out, diffMap("unremovable node", live.Unremovable, sim.Unremovable)...)
	if !slices.Equal(live.Removed, sim.Removed) {
		out = append(out, fmt.Sprintf("nodes removed: live %v, simulated %v", live.Removed, sim.Removed))
	}
	return out
}

func diffMap[V comparable](what string, live, sim map[string]V) []string {
	keys := map[string]bool{}
	for k := range maps.Keys(live) {
		keys[k] = true
	}
	for k := range maps.Keys(sim) {
		keys[k] = true
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		l, lok := live[k]
		s, sok := sim[k]
		if l != s || lok != sok {
			out = append(out, fmt.Sprintf("%s %s: live %s, simulated %s", what, k, show(l, lok), show(s, sok)))
		}
	}
	return out
}

func show[V any](v V, ok bool) string {
	if !ok {
		return "none"
	}
	return fmt.Sprint(v)
}

// String renders the decisions in one line.
func (d Decisions) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "scale-up %v, unneeded %v, removed %v, unremovable ", d.ScaleUp, d.Unneeded, d.Removed)
	keys := slices.Collect(maps.Keys(d.Unremovable))
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%s ", k, d.Unremovable[k])
	}
	return strings.TrimSpace(b.String())
}
