package shadow

import (
	"errors"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/kscale/kscale/internal/nodeautoscaler/dryrun"
)

// Kinds of decision a Verdict is about.
const (
	KindScaleUp   = "scale_up"
	KindScaleDown = "scale_down"
)

// Reasons of a Verdict.
const (
	// ReasonSameGroup: both scaled up the same group for the pod.
	ReasonSameGroup = "same_group"
	// ReasonBothNoScaleUp: neither scaled up for the pod.
	ReasonBothNoScaleUp = "both_no_scale_up"
	// ReasonTargetGrew: upstream sent no event for the pod but the group
	// kscale chose grew in the cloud within the window.
	ReasonTargetGrew = "target_grew"
	// ReasonOtherGroup: both scaled up for the pod, other groups.
	ReasonOtherGroup = "other_group"
	// ReasonUpstreamNoScaleUp: kscale scaled up, upstream said it would not.
	ReasonUpstreamNoScaleUp = "upstream_no_scale_up"
	// ReasonUpstreamScaledUp: kscale would not scale up, upstream did.
	ReasonUpstreamScaledUp = "upstream_scaled_up"
	// ReasonUpstreamSilent: kscale decided, upstream showed nothing.
	ReasonUpstreamSilent = "upstream_silent"
	// ReasonKscaleSilent: upstream decided on a pod kscale did not.
	ReasonKscaleSilent = "kscale_silent"
	// ReasonBothRemoved: both removed the node.
	ReasonBothRemoved = "both_removed"
	// ReasonUpstreamKeptNode: kscale removed the node, upstream did not.
	ReasonUpstreamKeptNode = "upstream_kept_node"
	// ReasonKscaleKeptNode: upstream removed the node, kscale did not.
	ReasonKscaleKeptNode = "kscale_kept_node"
)

// Upstream observation kinds.
const (
	// ObsScaleUp is a TriggeredScaleUp event on a pod.
	ObsScaleUp = "TriggeredScaleUp"
	// ObsNoScaleUp is a NotTriggerScaleUp event on a pod.
	ObsNoScaleUp = "NotTriggerScaleUp"
	// ObsScaleDown is a ScaleDown event on a node.
	ObsScaleDown = "ScaleDown"
	// ObsTargetGrew is a group whose target size the cloud reports grew.
	ObsTargetGrew = "TargetGrew"
)

// Observation is one thing the running autoscaler did.
type Observation struct {
	// Time is when it happened (the event's last timestamp).
	Time time.Time
	// Kind is one of the Obs* constants.
	Kind string
	// Subject is the pod (namespace/name) or node the event is on; empty
	// for ObsTargetGrew.
	Subject string
	// Groups are the groups a TriggeredScaleUp names, or the group whose
	// target grew.
	Groups []string
	// Message is the event's message.
	Message string
}

// Verdict is the comparison of one decision.
type Verdict struct {
	// Time is when the first of the two sides decided.
	Time time.Time `json:"time"`
	// Kind is KindScaleUp (per pod), KindScaleDown (per node) or
	// KindUnneeded (per group).
	Kind string `json:"kind"`
	// Subject is the pod (namespace/name) or the node.
	Subject string `json:"subject"`
	// Agree tells whether both sides decided alike.
	Agree bool `json:"agree"`
	// Reason is one of the Reason* constants.
	Reason string `json:"reason"`
	// Kscale and Upstream say what each side decided, in words.
	Kscale   string `json:"kscale"`
	Upstream string `json:"upstream"`
}

// Config configures a Comparator.
type Config struct {
	// Window is how long a decision waits for the other side's; it must
	// be positive.
	Window time.Duration
}

// pending is one side's decision waiting for the other's.
type pending struct {
	time   time.Time
	kind   string
	what   string
	groups []string
}

// Comparator matches kscale's decisions with upstream's observations.
// It is not safe for concurrent use.
type Comparator struct {
	cfg      Config
	kscale   map[string]pending
	upstream map[string]pending
	grew     []Observation
	// kept is the last reason kscale gave for not removing a node.
	kept map[string]string
	// settled holds when each subject's last verdict was given: a
	// subject's later decisions within the window repeat the settled one
	// (the loop decides again until the other side's action shows).
	settled map[string]time.Time
}

// New validates cfg and returns a Comparator.
func New(cfg Config) (*Comparator, error) {
	if cfg.Window <= 0 {
		return nil, errors.New("configuring the shadow comparison: the window must be positive")
	}
	return &Comparator{cfg: cfg, kscale: map[string]pending{}, upstream: map[string]pending{}, kept: map[string]string{}, settled: map[string]time.Time{}}, nil
}

func key(kind, subject string) string { return kind + "\x00" + subject }

// Kscale takes one decision of the dry-run loop. A pod or node already
// waiting keeps the time of its first decision and takes the latest one:
// a verdict compares what kscale decides when the other side acts (a
// pod's first loop may not scale up because its group's node is not
// ready yet; the next does).
func (c *Comparator) Kscale(d dryrun.Decision) {
	switch d.Kind {
	case dryrun.DecisionScaleUp, dryrun.DecisionNoScaleUp:
		p := pending{time: d.Time, kind: d.Kind, what: d.Reason}
		if d.Kind == dryrun.DecisionScaleUp {
			p.groups, p.what = []string{d.Group}, "scale up "+d.Group
		} else {
			p.what = "no scale-up: " + d.Reason
		}
		for _, ref := range d.Pods {
			c.latest(key(KindScaleUp, ref.Namespace+"/"+ref.Name), p)
		}
	case dryrun.DecisionScaleDown:
		for _, n := range d.Nodes {
			delete(c.kept, n)
			c.latest(key(KindScaleDown, n), pending{time: d.Time, kind: d.Kind, what: "remove (" + d.Reason + ")"})
		}
	case dryrun.DecisionUnremovable:
		for _, n := range d.Nodes {
			c.kept[n] = d.Reason
		}
	}
}

// Upstream takes one observation of the running autoscaler.
func (c *Comparator) Upstream(o Observation) {
	switch o.Kind {
	case ObsScaleUp:
		c.add(c.upstream, key(KindScaleUp, o.Subject), pending{time: o.Time, kind: o.Kind, groups: o.Groups, what: o.Message})
	case ObsNoScaleUp:
		c.add(c.upstream, key(KindScaleUp, o.Subject), pending{time: o.Time, kind: o.Kind, what: o.Message})
	case ObsScaleDown:
		c.add(c.upstream, key(KindScaleDown, o.Subject), pending{time: o.Time, kind: o.Kind, what: o.Message})
	case ObsTargetGrew:
		c.grew = append(c.grew, o)
	}
}

// latest records kscale's decision p on k, keeping the first decision's
// time while one waits.
func (c *Comparator) latest(k string, p pending) {
	if first, ok := c.kscale[k]; ok {
		p.time = first.time
		c.kscale[k] = p
		return
	}
	c.add(c.kscale, k, p)
}

func (c *Comparator) add(m map[string]pending, k string, p pending) {
	if at, ok := c.settled[k]; ok && p.time.Sub(at) < c.cfg.Window {
		return
	}
	if _, ok := m[k]; !ok {
		m[k] = p
	}
}

// Settle returns the verdicts of every decision whose window ended by
// now, sorted by time and subject, and forgets them.
func (c *Comparator) Settle(now time.Time) []Verdict {
	var out []Verdict
	for k, p := range c.kscale {
		u, matched := c.upstream[k]
		if matched {
			delete(c.upstream, k)
		} else if now.Sub(p.time) < c.cfg.Window {
			continue
		}
		delete(c.kscale, k)
		c.settled[k] = now
		out = append(out, c.judge(k, p, u, matched))
	}
	for k, u := range c.upstream {
		if now.Sub(u.time) < c.cfg.Window {
			continue
		}
		delete(c.upstream, k)
		c.settled[k] = now
		out = append(out, c.upstreamOnly(k, u))
	}
	for k, at := range c.settled {
		if now.Sub(at) >= c.cfg.Window {
			delete(c.settled, k)
		}
	}
	c.grew = slices.DeleteFunc(c.grew, func(o Observation) bool { return now.Sub(o.Time) >= 2*c.cfg.Window })
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Time.Equal(out[j].Time) {
			return out[i].Time.Before(out[j].Time)
		}
		return out[i].Subject < out[j].Subject
	})
	return out
}

func splitKey(k string) (kind, subject string) {
	kind, subject, _ = strings.Cut(k, "\x00")
	return kind, subject
}

// judge compares kscale's decision p with upstream's u (if matched).
func (c *Comparator) judge(k string, p, u pending, matched bool) Verdict {
	kind, subject := splitKey(k)
	v := Verdict{Time: p.time, Kind: kind, Subject: subject, Kscale: p.what, Upstream: "nothing seen"}
	if matched {
		v.Upstream = u.what
		if u.time.Before(p.time) {
			v.Time = u.time
		}
	}
	switch {
	case p.kind == dryrun.DecisionScaleDown && matched:
		v.Agree, v.Reason = true, ReasonBothRemoved
	case p.kind == dryrun.DecisionScaleDown:
		v.Reason = ReasonUpstreamKeptNode
	case p.kind == dryrun.DecisionScaleUp && matched && u.kind == ObsScaleUp:
		v.Agree, v.Reason = slices.Contains(u.groups, p.groups[0]), ReasonSameGroup
		if !v.Agree {
			v.Reason = ReasonOtherGroup
		}
	case p.kind == dryrun.DecisionScaleUp && matched:
		v.Reason = ReasonUpstreamNoScaleUp
	case p.kind == dryrun.DecisionScaleUp && c.targetGrew(p.groups[0], p.time):
		v.Agree, v.Reason, v.Upstream = true, ReasonTargetGrew, "target size of "+p.groups[0]+" grew"
	case p.kind == dryrun.DecisionScaleUp:
		v.Reason = ReasonUpstreamSilent
	case matched && u.kind == ObsNoScaleUp:
		v.Agree, v.Reason = true, ReasonBothNoScaleUp
	case matched:
		v.Reason = ReasonUpstreamScaledUp
	default:
		v.Reason = ReasonUpstreamSilent
	}
	return v
}

// upstreamOnly is the verdict of an upstream decision kscale never made.
func (c *Comparator) upstreamOnly(k string, u pending) Verdict {
	kind, subject := splitKey(k)
	v := Verdict{Time: u.time, Kind: kind, Subject: subject, Upstream: u.what, Kscale: "nothing decided", Reason: ReasonKscaleSilent}
	if kind == KindScaleDown {
		v.Reason = ReasonKscaleKeptNode
		if why, ok := c.kept[subject]; ok {
			v.Kscale = "kept: " + why
		}
	}
	return v
}

// targetGrew reports whether group's target grew within the window
// around t.
func (c *Comparator) targetGrew(group string, t time.Time) bool {
	return slices.ContainsFunc(c.grew, func(o Observation) bool {
		d := o.Time.Sub(t)
		return slices.Contains(o.Groups, group) && d > -c.cfg.Window && d < c.cfg.Window
	})
}
