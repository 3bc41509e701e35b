package scaledown

import (
	"cmp"
	"fmt"
	"slices"
)

// Zero-or-max groups (upstream's ZeroOrMaxNodeScaling option) lose their
// nodes only all together, as upstream's scale-down treats them:
//
//   - Their nodes are always simulated: the candidate limits
//     (--scale-down-non-empty-candidates-count and the pool) neither cut
//     nor count them, as upstream's unneeded-nodes limit leaves them out.
//   - Of the nodes unneeded long enough, a group's go only when they are
//     all of its target size or all of its registered nodes (upstream's
//     AtomicResizeFilteringProcessor); otherwise each of them is kept with
//     ReasonAtomicScaleDownFailed (and stays unneeded).
//   - Such groups are taken before single nodes, each whole, empty and
//     drained nodes together (upstream's ScaleDownBudgetProcessor): a group
//     that does not fit the remaining --max-scale-down-parallelism (or
//     --max-drain-parallelism for its nodes to drain) stops the atomic
//     groups, except that the first one may overflow a budget that is not
//     used up. Single nodes share what budget is left. The plan names
//     such groups (Plan.Atomic): the actuator deletes a group's nodes in
//     one provider call once all of them are drained, and gives all of
//     them up when one fails (upstream's GroupDeletionScheduler).

// atomicGroup is one zero-or-max group's nodes removable now.
type atomicGroup struct {
	id           string
	empty, drain []Candidate
}

func (g *atomicGroup) size() int { return len(g.empty) + len(g.drain) }

// splitAtomic splits the nodes removable now into those of zero-or-max
// groups, by group in the order of their first node, and the others.
func splitAtomic(ready []Candidate, groups map[string]Group) (atomic []*atomicGroup, single []Candidate) {
	byID := map[string]*atomicGroup{}
	for _, c := range ready {
		if !groups[c.Group].Options.ZeroOrMaxNodeScaling {
			single = append(single, c)
			continue
		}
		g, ok := byID[c.Group]
		if !ok {
			g = &atomicGroup{id: c.Group}
			byID[c.Group] = g
			atomic = append(atomic, g)
		}
		if c.Empty {
			g.empty = append(g.empty, c)
		} else {
			g.drain = append(g.drain, c)
		}
	}
	return atomic, single
}

// wholeGroups keeps the atomic groups whose removable nodes are all of
// their target size or all of their registered nodes, and returns the
// others' nodes as blocked.
func wholeGroups(atomic []*atomicGroup, groups map[string]Group, registered map[string]int) (whole []*atomicGroup, failed []Blocked) {
	for _, g := range atomic {
		target, n := groups[g.id].TargetSize, g.size()
		if n == target || n == registered[g.id] {
			whole = append(whole, g)
			continue
		}
		detail := fmt.Sprintf("node group %s scales to zero or max: %d of its %d nodes (target size %d) are removable now",
			g.id, n, registered[g.id], target)
		for _, c := range slices.Concat(g.empty, g.drain) {
			failed = append(failed, Blocked{Node: c.Node.Name, Group: g.id, Reason: ReasonAtomicScaleDownFailed, Detail: detail})
		}
	}
	return whole, failed
}

// budgets are the deletions a round may still start.
type budgets struct {
	all, drain int
}

// takeAtomic picks whole atomic groups within the budgets: first the
// groups with empty nodes (with their nodes to drain), then those with
// only nodes to drain. taken names the groups picked, in that order.
func (b *budgets) takeAtomic(whole []*atomicGroup) (empty, drain []Candidate, taken []string) {
	overflow := true
	for _, g := range whole {
		if len(g.empty) == 0 {
			continue
		}
		if b.all < g.size() || b.drain < len(g.drain) {
			if b.all == 0 || (len(g.drain) > 0 && b.drain == 0) || !overflow {
				break
			}
		}
		empty, drain = append(empty, g.empty...), append(drain, g.drain...)
		taken = append(taken, g.id)
		b.all, b.drain = b.all-g.size(), b.drain-len(g.drain)
		overflow = false
	}
	b.drain = min(b.all, b.drain)
	for _, g := range whole {
		if len(g.empty) > 0 {
			continue
		}
		if b.drain < len(g.drain) && (b.drain == 0 || !overflow) {
			break
		}
		drain = append(drain, g.drain...)
		taken = append(taken, g.id)
		b.all, b.drain = b.all-len(g.drain), b.drain-len(g.drain)
		overflow = false
	}
	return empty, drain, taken
}

// registeredNodes counts the registered nodes per group.
func registeredNodes(nodes []Node) map[string]int {
	out := map[string]int{}
	for i := range nodes {
		if g := nodes[i].Group; g != "" {
			out[g]++
		}
	}
	return out
}

// withBlocked adds the blocks to the blocked nodes, keeping node name
// order.
func withBlocked(blocked, more []Blocked) []Blocked {
	if len(more) == 0 {
		return blocked
	}
	out := slices.Concat(blocked, more)
	slices.SortStableFunc(out, func(a, b Blocked) int { return cmp.Compare(a.Node, b.Node) })
	return out
}
