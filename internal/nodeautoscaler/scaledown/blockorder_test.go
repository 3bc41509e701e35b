package scaledown

import (
	"testing"
)

// TestBlockingReasonIgnoresPodOrder: a node with a bare pod and a pod
// whose PDB allows no disruption reports the same reason whichever order
// the pods are listed in (an informer's order and a snapshot's differ).
func TestBlockingReasonIgnoresPodOrder(t *testing.T) {
	for _, bareFirst := range []bool{true, false} {
		w := new(world).node("a", "g").node("b", "g")
		if bareFirst {
			w.barePod("z-bare", "a", "100m").pod("p", "a", "100m")
		} else {
			w.pod("p", "a", "100m").barePod("z-bare", "a", "100m")
		}
		w.pdbs = append(w.pdbs, pdb("p", "p", "default", 0))
		plan, err := mustPlanner(t, testConfig()).Plan(w.input(t0))
		if err != nil {
			t.Fatal(err)
		}
		if got := reasons(plan.Blocked)["a"]; got != ReasonPDB {
			t.Errorf("bare pod listed first %v: node a blocked by %q, want %q (the least reason)", bareFirst, got, ReasonPDB)
		}
	}
}
