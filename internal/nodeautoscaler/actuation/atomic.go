package actuation

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/kscale/kscale/internal/nodeautoscaler/scaledown"
)

// The nodes of a zero-or-max group (upstream's ZeroOrMaxNodeScaling) are
// removed together, as upstream's GroupDeletionScheduler removes them: each
// is prepared as any other node (marked, drained or checked empty, held for
// delay-deletion annotations), then waits for the others; once all are
// ready they are deleted in one provider call. When one of them fails (its
// taint, drain, emptiness check or read), the others are given up at once:
// their taints (and cordon) are removed and each ends with
// FailureAtomicGroup, whatever its drain had done so far.

// errGroupGivenUp is the error of the nodes given up with their group.
var errGroupGivenUp = errors.New("another node of the zero-or-max group could not be removed")

// batch is one zero-or-max group's nodes being removed together.
type batch struct {
	group string
	// size is the number of nodes that go together.
	size int
	// failed is set once one of them failed.
	failed bool
}

// batchAtomic ties together the deletions Start created (from index
// first on) for each of the plan's zero-or-max groups. A group of which a
// planned node could not be marked is given up whole at once.
func (a *Actuator) batchAtomic(ctx context.Context, plan scaledown.Plan, first int, now time.Time) []Outcome {
	if len(plan.Atomic) == 0 {
		return nil
	}
	planned := map[string]int{}
	for _, c := range slices.Concat(plan.Empty, plan.Drain) {
		planned[c.Group]++
	}
	var out []Outcome
	for _, g := range plan.Atomic {
		var members []*deletion
		for _, d := range a.deletions[first:] {
			if d.cand.Group == g {
				members = append(members, d)
			}
		}
		if len(members) == planned[g] {
			b := &batch{group: g, size: len(members)}
			for _, d := range members {
				d.batch = b
			}
			continue
		}
		out = append(out, a.giveUp(ctx, members, now)...)
		a.deletions = slices.DeleteFunc(a.deletions, func(d *deletion) bool { return slices.Contains(members, d) })
	}
	return out
}

// stepAtomic finishes a step for the zero-or-max groups among the kept
// deletions: a group with a failed node is given up, a group whose nodes
// are all ready is deleted in one provider call. It returns the deletions
// still under way.
func (a *Actuator) stepAtomic(ctx context.Context, kept []*deletion, now time.Time) ([]*deletion, []Outcome) {
	queued := map[*batch]int{}
	for _, d := range kept {
		if d.batch != nil && d.phase == phaseQueued {
			queued[d.batch]++
		}
	}
	var out []Outcome
	var order []*batch
	members := map[*batch][]*deletion{}
	rest := kept[:0]
	for _, d := range kept {
		b := d.batch
		switch {
		case b == nil || (!b.failed && queued[b] < b.size):
			rest = append(rest, d)
			continue
		case len(members[b]) == 0:
			order = append(order, b)
		}
		members[b] = append(members[b], d)
	}
	for _, b := range order {
		if b.failed {
			out = append(out, a.giveUp(ctx, members[b], now)...)
			continue
		}
		out = append(out, a.deleteNodes(ctx, members[b], now, true)...)
	}
	return rest, out
}

// giveUp ends the deletions of a zero-or-max group's nodes whose removal
// failed elsewhere: their taints go and each fails with
// FailureAtomicGroup.
func (a *Actuator) giveUp(ctx context.Context, ds []*deletion, now time.Time) []Outcome {
	out := make([]Outcome, 0, len(ds))
	for _, d := range ds {
		err := fmt.Errorf("removing node group %s as a whole: %w", d.cand.Group, errGroupGivenUp)
		out = append(out, a.failDeletion(ctx, d, now, FailureAtomicGroup, err))
	}
	return out
}
