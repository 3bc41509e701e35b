package updater

import "math"

// Budget is the disruption budget of one controller's pods within one loop.
type Budget struct {
	configured int
	running    int
	tolerance  int
	disrupted  int
	// belowMin marks a group with fewer live pods than minReplicas that is
	// only let through for in-place work (--in-place-skip-disruption-budget
	// or a startup boost to undo): its running pods are never evicted.
	belowMin bool
}

// NewBudget returns the budget of a controller with configured desired
// replicas, of which live pods exist and pending are Pending, under the
// given eviction tolerance (a fraction of configured).
func NewBudget(configured, live, pending int, tolerance float64) *Budget {
	return &Budget{
		configured: configured,
		running:    live - pending,
		tolerance:  int(math.Floor(float64(configured) * tolerance)),
	}
}

// CanDisrupt reports whether a pod may be evicted (or resized) now. Pending
// pods always may. A running pod may when more than configured − tolerance
// pods stay alive, or, with a tolerance of zero, when it is the first
// disruption of a group whose pods are all running.
func (b *Budget) CanDisrupt(pending bool) bool {
	if pending {
		return true
	}
	alive := b.running - b.disrupted
	if alive > b.configured-b.tolerance {
		return true
	}
	return b.tolerance == 0 && b.configured == b.running && b.disrupted == 0
}

// CanEvict is CanDisrupt for an eviction: a running pod of a group below
// minReplicas is never evicted.
func (b *Budget) CanEvict(pending bool) bool {
	if b.belowMin && !pending {
		return false
	}
	return b.CanDisrupt(pending)
}

// Disrupted records a successful eviction or in-place update of a pod;
// pending pods do not consume the budget.
func (b *Budget) Disrupted(pending bool) {
	if !pending {
		b.disrupted++
	}
}

// EnoughReplicas reports whether a controller with live pods may be
// updated at all under minReplicas.
func EnoughReplicas(live, minReplicas int) bool { return live >= minReplicas }
