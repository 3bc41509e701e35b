package nodeautoscaler

import (
	"time"

	"github.com/kscale/kscale/internal/nodeautoscaler/scaledown"
)

// removalLatencyTracker follows unneeded nodes for
// --node-removal-latency-tracking-enabled, as upstream's node latency
// tracker: from when a node became unneeded until its deletion began or it
// was needed again, minus the time it had to stay unneeded first. It holds
// no clock: each round passes the loop time.
type removalLatencyTracker struct {
	nodes map[string]trackedNode
}

// trackedNode is one unneeded node being followed.
type trackedNode struct {
	since     time.Time
	threshold time.Duration
	delay     string
}

// removalLatency is one node's observation.
type removalLatency struct {
	// Deleted is true when the node's deletion began, false when it was
	// needed again.
	Deleted bool
	// DelayReason is the last reason that kept the node once it was
	// unneeded (upstream's reason names), "none" without one.
	DelayReason string
	// Latency is the time unneeded beyond the node's threshold.
	Latency time.Duration
}

// latencyRound is what one scale-down round tells the tracker.
type latencyRound struct {
	plan                      scaledown.Plan
	started                   []string
	unneededTime, unreadyTime time.Duration
	now                       time.Time
}

// delayReasons are kscale's reasons that keep an unneeded node without
// making it needed, under upstream's names: upstream finds such nodes
// unneeded and then unremovable, kscale finds them blocked.
var delayReasons = map[scaledown.Reason]string{
	scaledown.ReasonMinSize:           "NodeGroupMinSizeReached",
	scaledown.ReasonScaleDownDisabled: "ScaleDownDisabledAnnotation",
	scaledown.ReasonNotAutoscaled:     "NotAutoscaled",
}

func newRemovalLatencyTracker() *removalLatencyTracker {
	return &removalLatencyTracker{nodes: map[string]trackedNode{}}
}

// round updates the tracked nodes from a round and returns the
// observations of the nodes it stopped following with a positive latency.
func (t *removalLatencyTracker) round(r latencyRound) []removalLatency {
	current := map[string]bool{}
	for _, c := range r.plan.Unneeded {
		current[c.Node.Name] = true
		threshold := r.unneededTime
		if !c.Ready {
			threshold = r.unreadyTime
		}
		n, ok := t.nodes[c.Node.Name]
		if !ok {
			n = trackedNode{since: c.UnneededSince}
		}
		n.threshold = threshold
		t.nodes[c.Node.Name] = n
	}
	for _, b := range r.plan.Blocked {
		n, ok := t.nodes[b.Node]
		if reason, delays := delayReasons[b.Reason]; ok && delays {
			n.delay = reason
			t.nodes[b.Node] = n
			current[b.Node] = true
		}
	}
	var out []removalLatency
	for name := range t.nodes {
		if !current[name] {
			out = t.stop(out, name, false, r.now)
		}
	}
	for _, name := range r.started {
		out = t.stop(out, name, true, r.now)
	}
	return out
}

// stop ends following name and adds its observation when it waited beyond
// its threshold.
func (t *removalLatencyTracker) stop(out []removalLatency, name string, deleted bool, now time.Time) []removalLatency {
	n, ok := t.nodes[name]
	if !ok {
		return out
	}
	delete(t.nodes, name)
	latency := now.Sub(n.since) - n.threshold
	if latency <= 0 {
		return out
	}
	reason := n.delay
	if reason == "" {
		reason = "none"
	}
	return append(out, removalLatency{Deleted: deleted, DelayReason: reason, Latency: latency})
}
