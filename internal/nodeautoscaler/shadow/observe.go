package shadow

import (
	"maps"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// UpstreamSource is the source component of upstream Cluster Autoscaler's
// events (and Gardener's build of it).
const UpstreamSource = "cluster-autoscaler"

// Upstream's event reasons and the message prefix of a TriggeredScaleUp.
const (
	reasonTriggered    = "TriggeredScaleUp"
	reasonNotTriggered = "NotTriggerScaleUp"
	reasonScaleDown    = "ScaleDown"
	triggeredPrefix    = "pod triggered scale-up: "
)

// FromEvent turns one of upstream's events into an observation: a
// TriggeredScaleUp or NotTriggerScaleUp on a pod, a ScaleDown on a node.
// Other events, and events of other sources, give false.
func FromEvent(e *corev1.Event) (Observation, bool) {
	if e.Source.Component != UpstreamSource && e.ReportingController != UpstreamSource {
		return Observation{}, false
	}
	obj := e.InvolvedObject
	o := Observation{Time: eventTime(e), Message: e.Message}
	switch {
	case e.Reason == reasonTriggered && obj.Kind == "Pod":
		o.Kind, o.Subject, o.Groups = ObsScaleUp, obj.Namespace+"/"+obj.Name, triggeredGroups(e.Message)
	case e.Reason == reasonNotTriggered && obj.Kind == "Pod":
		o.Kind, o.Subject = ObsNoScaleUp, obj.Namespace+"/"+obj.Name
	case e.Reason == reasonScaleDown && obj.Kind == "Node":
		o.Kind, o.Subject = ObsScaleDown, obj.Name
	default:
		return Observation{}, false
	}
	return o, true
}

// eventTime is when the event last happened.
func eventTime(e *corev1.Event) time.Time {
	switch {
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	}
	return e.FirstTimestamp.Time
}

// triggeredGroups parses the groups of upstream's TriggeredScaleUp
// message, "pod triggered scale-up: [{group 1->3 (max: 10)} {...}]": the
// first word of every brace.
func triggeredGroups(msg string) []string {
	rest, ok := strings.CutPrefix(msg, triggeredPrefix)
	if !ok {
		return nil
	}
	var groups []string
	for {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			return groups
		}
		rest = rest[i+1:]
		end := strings.IndexAny(rest, " }")
		if end <= 0 {
			return groups
		}
		groups = append(groups, rest[:end])
		rest = rest[end:]
	}
}

// Targets tells target size growth from one loop's cloud view to the
// next. The dry run never changes a target, so growth is the running
// autoscaler's (or an operator's).
type Targets struct {
	last map[string]int
}

// Observe takes the target sizes per group seen at now and returns an
// ObsTargetGrew per group that grew since the last call.
func (t *Targets) Observe(now time.Time, targets map[string]int) []Observation {
	var out []Observation
	for g, n := range targets {
		if prev, ok := t.last[g]; ok && n > prev {
			out = append(out, Observation{Time: now, Kind: ObsTargetGrew, Groups: []string{g}})
		}
	}
	t.last = maps.Clone(targets)
	return out
}
