package scaledown

import (
	"math"
	"time"
)

// The candidate limits and the recheck of unremovable nodes follow the
// scale-down of Zalando's fork (upstream cluster-autoscaler 1.18.2,
// core/scale_down.go UpdateUnneededNodes; unchanged in upstream's legacy
// scale-down until it was removed in 1.32, whose planner parses the three
// candidate flags without using them):
//
//   - Empty candidates and the non-empty candidates that were unneeded in
//     the previous round are always simulated.
//   - Then, when fewer than --scale-down-non-empty-candidates-count of those
//     non-empty ones were found removable, the other non-empty candidates
//     are simulated, in candidate order, from a pool of the first
//     max(ceil(nodes * --scale-down-candidates-pool-ratio),
//     --scale-down-candidates-pool-min-count) of them, until the count is
//     reached. The rest are kept this round (ReasonNotExamined). A count of
//     0 or less turns the limits off.
//   - A node the simulation finds unremovable (a blocking pod, no place for
//     its pods, a simulation error) is not simulated again until
//     --unremovable-node-recheck-timeout has passed
//     (ReasonRecentlyUnremovable); 0 rechecks it every round.
//   - Nodes of zero-or-max groups are always simulated and not counted
//     (see zeroormax.go).

// splitByLimits splits the candidates (in candidate order) into those
// always simulated and the rest, which compete for the additional pool;
// previous are the nodes unneeded in the last round.
func (c *Config) splitByLimits(cands []*nodeState, previous map[string]time.Time) (always, rest []*nodeState) {
	if c.NonEmptyCandidatesCount <= 0 {
		return cands, nil
	}
	for _, s := range cands {
		if _, ok := previous[s.Node.Node.Name]; ok || len(s.movable) == 0 || s.groupConfig(c).zeroOrMax {
			always = append(always, s)
		} else {
			rest = append(rest, s)
		}
	}
	return always, rest
}

// additional returns how many more non-empty nodes may be found removable
// after found were among the always simulated ones, and from how many of
// the rest (the pool), for a cluster of nodes nodes.
func (c *Config) additional(found, rest, nodes int) (count, pool int) {
	count = min(c.NonEmptyCandidatesCount-found, rest)
	pool = int(math.Ceil(float64(nodes) * c.CandidatesPoolRatio))
	pool = min(max(pool, c.CandidatesPoolMinCount), rest)
	return count, pool
}

// nonEmpty counts the nodes with pods to move, but for those of
// zero-or-max groups.
func nonEmpty(cfg *Config, states []*nodeState) int {
	n := 0
	for _, s := range states {
		if len(s.movable) > 0 && !s.groupConfig(cfg).zeroOrMax {
			n++
		}
	}
	return n
}

// rechecked reports the reasons found by simulating a node's removal,
// which keep the node out of the simulation until the recheck timeout.
func (r Reason) rechecked() bool {
	switch r {
	case ReasonNotAutoscaled, ReasonNodeGroupBlocked, ReasonScaleDownDisabled, ReasonBeingDeleted,
		ReasonHighUtilization, ReasonMinSize, ReasonRecentlyUnremovable, ReasonNotExamined, ReasonGroupCooldown:
		return false
	}
	return true
}

// skipRecent blocks the autoscaled nodes found unremovable by a simulation
// whose recheck time has not come, and forgets the entries of nodes that
// are gone or due.
func (p *Planner) skipRecent(states []*nodeState, groups map[string]Group, now time.Time) {
	if len(p.recheck) == 0 {
		return
	}
	next := make(map[string]time.Time, len(p.recheck))
	for _, s := range states {
		at, ok := p.recheck[s.Node.Node.Name]
		if !ok || !at.After(now) {
			continue
		}
		next[s.Node.Node.Name] = at
		if _, managed := groups[s.Group]; managed && s.Group != "" {
			s.block(ReasonRecentlyUnremovable, nil, "found unremovable; simulated again from "+at.UTC().Format(time.RFC3339)+
				" (--unremovable-node-recheck-timeout)")
		}
	}
	p.recheck = next
}

// rememberUnremovable notes the nodes this round's simulation found
// unremovable, to be simulated again only after the recheck timeout.
func (p *Planner) rememberUnremovable(states []*nodeState, now time.Time) {
	at := now.Add(p.cfg.UnremovableRecheckTimeout)
	for _, s := range states {
		if s.blocked != nil && s.blocked.Reason.rechecked() {
			p.recheck[s.Node.Node.Name] = at
		}
	}
}
