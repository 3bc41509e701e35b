package scaledown

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// Planner finds unneeded nodes and picks the ones to remove. It remembers
// since when each node has been unneeded, so keep one Planner for the life
// of the loop. It is not safe for concurrent use.
type Planner struct {
	cfg   Config
	since map[string]time.Time
	// groupCfg are this round's settings of groups with own options.
	groupCfg groupConfigs
	// recheck holds the nodes a simulation found unremovable, until when
	// they are not simulated again.
	recheck map[string]time.Time
	// details keeps the texts of ReasonHighUtilization between rounds.
	details utilDetails
	// states are the node states of a round, reused.
	states stateBuf
	// byName is the order of the last round's nodes by name.
	byName nameOrder
}

// NewPlanner validates the config and returns a planner.
func NewPlanner(cfg Config) (*Planner, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("configuring scale-down: %w", err)
	}
	return &Planner{cfg: cfg, since: map[string]time.Time{}, recheck: map[string]time.Time{}, details: utilDetails{}}, nil
}

// ClearUnneeded forgets since when every node has been unneeded, as
// upstream does while the cluster is unhealthy: after it recovers, nodes
// must be unneeded for the full time again.
func (p *Planner) ClearUnneeded() { clear(p.since) }

// Plan runs one planning round at in.Now.
func (p *Planner) Plan(in Input) (Plan, error) {
	groups := make(map[string]Group, len(in.Groups))
	for _, g := range in.Groups {
		groups[g.ID] = g
	}
	p.groupCfg = resolveGroups(&p.cfg, in.Groups)
	in.groupCfg = p.groupCfg
	states := gatherInto(&in, p.cfg, p.states.take(len(in.Nodes)))
	defer p.states.release()
	order := p.byName.of(in.Nodes)
	rankNames(states, order)
	p.skipRecent(states, groups, in.Now)
	p.skipCooling(states, &in)
	p.cfg.classifyNodes(states, groups, newPDBIndex(in.PDBs), in.Controllers, in.Now, p.details)
	removed, err := simulateRemoval(&p.cfg, &in, states, p.since)
	if err != nil {
		return Plan{}, err
	}
	p.rememberUnremovable(states, in.Now)
	var plan Plan
	for _, s := range removed {
		plan.Unneeded = append(plan.Unneeded, p.candidate(s))
	}
	p.forget(plan.Unneeded, in.Now)
	plan.Blocked = blockedOf(states, order)
	plan.Skipped = p.skipReason(&in)
	if plan.Skipped == "" {
		var failed []Blocked
		plan.Empty, plan.Drain, plan.Atomic, failed = p.choose(plan.Unneeded, groups, registeredNodes(in.Nodes), in.InFlight, in.Now)
		plan.Blocked = withBlocked(plan.Blocked, failed)
	}
	return plan, nil
}

// simulateRemoval returns the candidates that can go, in removal order,
// within the candidate limits (see limits.go); previous are the nodes
// unneeded in the last round. Without a candidate nothing is simulated.
func simulateRemoval(cfg *Config, in *Input, states []*nodeState, previous map[string]time.Time) ([]*nodeState, error) {
	cands, snapOrder := splitCandidates(states)
	if len(cands) == 0 {
		return nil, nil
	}
	r, err := newRemoval(cfg, in, snapOrder)
	if err != nil {
		return nil, err
	}
	defer r.close()
	always, rest := cfg.splitByLimits(cands, previous)
	removed, examined := r.removeCandidates(always, -1)
	if r.timedOut {
		notExamined(always[examined:], timeoutDetail)
		notExamined(rest, timeoutDetail)
		return removed, nil
	}
	if len(rest) == 0 {
		return removed, nil
	}
	examined = 0
	if count, pool := cfg.additional(nonEmpty(cfg, removed), len(rest), len(in.Nodes)); count > 0 {
		var more []*nodeState
		more, examined = r.removeCandidates(rest[:pool], count)
		removed = append(removed, more...)
	}
	detail := "not simulated this round (--scale-down-non-empty-candidates-count, --scale-down-candidates-pool-ratio, --scale-down-candidates-pool-min-count)"
	if r.timedOut {
		detail = timeoutDetail
	}
	notExamined(rest[examined:], detail)
	return removed, nil
}

// timeoutDetail explains candidates left out when the simulation's time
// budget ran out.
const timeoutDetail = "not simulated this round: the removal simulation ran out of time (--scale-down-simulation-timeout)"

// notExamined blocks the candidates a round did not simulate.
func notExamined(states []*nodeState, detail string) {
	for _, s := range states {
		s.block(ReasonNotExamined, nil, detail)
	}
}

// candidate records the node as unneeded (keeping an earlier start).
func (p *Planner) candidate(s *nodeState) Candidate {
	name := s.Node.Node.Name
	c := Candidate{
		Node: s.Node.Node, Group: s.Group, Instance: s.Instance, Ready: s.Ready,
		Empty: len(s.movable) == 0, Utilization: s.util, Pods: s.evictable(),
	}
	if since, ok := p.since[name]; ok {
		c.UnneededSince = since
	}
	return c
}

// forget keeps the unneeded-since times of exactly the given nodes, starting
// the clock at now for the new ones.
func (p *Planner) forget(unneeded []Candidate, now time.Time) {
	next := make(map[string]time.Time, len(unneeded))
	for i := range unneeded {
		c := &unneeded[i]
		if c.UnneededSince.IsZero() {
			c.UnneededSince = now
		}
		next[c.Node.Name] = c.UnneededSince
	}
	p.since = next
}

// skipReason says why no node is removed this round, or "".
func (p *Planner) skipReason(in *Input) string {
	c := &p.cfg
	switch {
	case !c.Enabled:
		return "scale-down is disabled"
	case in.SchedulablePending && !c.IgnoreSchedulablePods:
		return "pending pods fit on existing nodes"
	case c.DelayTypeLocal:
		return "" // skipCooling applies the delays per group
	}
	return c.cooldown(in.LastScaleUp, in.LastDeletion, in.LastFailure, in.Now)
}

// cooldown says which --scale-down-delay-after-* delay since the given
// last scale-up, deletion and failure (zero: never) still runs at now, or
// "".
func (c *Config) cooldown(scaleUp, deletion, failure, now time.Time) string {
	afterDelete := c.DelayAfterDelete
	if afterDelete == 0 {
		afterDelete = c.ScanInterval
	}
	switch {
	case c.DelayAfterAdd >= 0 && !scaleUp.IsZero() && now.Before(scaleUp.Add(c.DelayAfterAdd)):
		return "in cooldown after a scale-up (--scale-down-delay-after-add)"
	case !deletion.IsZero() && now.Before(deletion.Add(afterDelete)):
		return "in cooldown after a node deletion (--scale-down-delay-after-delete)"
	case !failure.IsZero() && now.Before(failure.Add(c.DelayAfterFailure)):
		return "in cooldown after a failed scale-down (--scale-down-delay-after-failure)"
	}
	return ""
}

// skipCooling, with --scale-down-delay-type-local, keeps the nodes of the
// groups in a delay from being candidates (upstream's
// ScaleDownCandidatesDelayProcessor); pods of other removed nodes can still
// move onto them.
func (p *Planner) skipCooling(states []*nodeState, in *Input) {
	if !p.cfg.DelayTypeLocal {
		return
	}
	why := map[string]string{}
	for _, s := range states {
		if s.Group == "" {
			continue
		}
		w, ok := why[s.Group]
		if !ok {
			w = p.cfg.cooldown(in.GroupLastScaleUp[s.Group], in.GroupLastDeletion[s.Group], in.GroupLastFailure[s.Group], in.Now)
			why[s.Group] = w
		}
		if w != "" {
			s.block(ReasonGroupCooldown, nil, "node group "+w)
		}
	}
}

// choose picks the nodes unneeded long enough, within the parallelism
// limits: whole zero-or-max groups first (see zeroormax.go), then single
// empty nodes (in bulk), then single nodes to drain. It returns the nodes
// of zero-or-max groups that cannot go whole as blocked; registered counts
// each group's nodes. atomic names the zero-or-max groups taken whole.
func (p *Planner) choose(unneeded []Candidate, groups map[string]Group, registered map[string]int, inFlight InFlight,
	now time.Time) (empty, drain []Candidate, atomic []string, failed []Blocked) {
	var ready []Candidate
	for _, c := range unneeded {
		if p.longEnough(&c, now) && (c.Ready || p.cfg.UnreadyEnabled) {
			ready = append(ready, c)
		}
	}
	byGroup, single := splitAtomic(ready, groups)
	whole, failed := wholeGroups(byGroup, groups, registered)
	b := budgets{all: p.cfg.MaxScaleDownParallelism - inFlight.Empty - inFlight.NonEmpty, drain: p.cfg.MaxDrainParallelism - inFlight.NonEmpty}
	empty, drain, atomic = b.takeAtomic(whole)
	singleEmpty, singleDrain := 0, 0
	for _, c := range single { // empty ones first
		switch {
		case c.Empty && singleEmpty < min(b.all, p.cfg.MaxEmptyBulkDelete):
			empty, singleEmpty = append(empty, c), singleEmpty+1
		case !c.Empty && singleDrain < min(b.all-singleEmpty, b.drain):
			drain, singleDrain = append(drain, c), singleDrain+1
		}
	}
	return empty, drain, atomic, failed
}

// longEnough reports whether the node has been unneeded for the unneeded
// time (ready nodes) or the unready time (unready nodes).
func (p *Planner) longEnough(c *Candidate, now time.Time) bool {
	cfg := p.groupCfg.of(c.Group, &p.cfg)
	wait := cfg.UnneededTime
	if !c.Ready {
		wait = cfg.UnreadyTime
	}
	return !now.Before(c.UnneededSince.Add(wait))
}

// blockedOf returns the blocked nodes in node name order; order, when
// not nil, is the states' indexes in name order (see nameOrder).
func blockedOf(states []*nodeState, order []int) []Blocked {
	if order == nil {
		return sortBlocked(states)
	}
	n := 0
	for _, s := range states {
		if s.blocked != nil {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]Blocked, 0, n)
	for _, i := range order {
		if s := states[i]; s.blocked != nil {
			out = append(out, *s.blocked)
		}
	}
	return out
}

// sortBlocked is blockedOf sorting the blocked nodes by name.
func sortBlocked(states []*nodeState) []Blocked {
	var blocked []*Blocked
	for _, s := range states {
		if s.blocked != nil {
			blocked = append(blocked, s.blocked)
		}
	}
	if len(blocked) == 0 {
		return nil
	}
	slices.SortFunc(blocked, func(a, b *Blocked) int { return cmp.Compare(a.Node, b.Node) })
	out := make([]Blocked, len(blocked))
	for i, b := range blocked {
		out[i] = *b
	}
	return out
}

// nameOrder is the order of a round's nodes by name, kept while the
// nodes' names stay the same.
type nameOrder struct {
	names []string
	order []int
}

// of returns the indexes of nodes in name order, or nil when two nodes
// share a name (sorting them is then left to the caller).
func (o *nameOrder) of(nodes []Node) []int {
	if len(nodes) == len(o.names) {
		same := true
		for i := range nodes {
			if nodes[i].Node.Name != o.names[i] {
				same = false
				break
			}
		}
		if same {
			return o.order
		}
	}
	o.names = o.names[:0]
	for i := range nodes {
		o.names = append(o.names, nodes[i].Node.Name)
	}
	o.order = make([]int, len(nodes))
	for i := range o.order {
		o.order[i] = i
	}
	slices.SortFunc(o.order, func(a, b int) int { return cmp.Compare(o.names[a], o.names[b]) })
	for i := 1; i < len(o.order); i++ {
		if o.names[o.order[i-1]] == o.names[o.order[i]] {
			o.order = nil
			break
		}
	}
	return o.order
}
