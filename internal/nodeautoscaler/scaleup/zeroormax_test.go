package scaleup

import (
	"testing"
)

func zeroOrMax(g Group) Group {
	g.ZeroOrMax = true
	return g
}

func TestComputeZeroOrMax(t *testing.T) {
	tests := []struct {
		name   string
		in     Input
		want   string
		reason string // a substring of the first unhelped pod's reasons
	}{
		{"an empty group grows to its max size for one pod",
			Input{Pending: pods(1, "24Gi"), Groups: []Group{zeroOrMax(group("zom", "", 0, 0, 4))}}, "zom+4", ""},
		{"a group with nodes grows to its max size",
			Input{Pending: pods(1, "24Gi"), Groups: []Group{zeroOrMax(group("zom", "", 2, 0, 5))}}, "zom+3", ""},
		{"more pods than the max size still takes the group to max",
			Input{Pending: pods(6, "24Gi"), Groups: []Group{zeroOrMax(group("zom", "", 0, 0, 4))}}, "zom+4", ""},
		{"a group at max size is skipped",
			Input{Pending: pods(1, "24Gi"), Groups: []Group{zeroOrMax(group("zom", "", 3, 0, 3))}}, "", "zom: max size reached"},
		{"max-nodes-total below the whole increase leaves the group out",
			Input{Pending: pods(1, "24Gi"), Limits: Limits{MaxNodesTotal: 5, Nodes: 2},
				Groups: []Group{zeroOrMax(group("zom", "100", 0, 0, 4)), group("ng", "", 0, 0, 10)}},
			"ng+1", ""},
		{"max-nodes-total below the whole increase says so",
			Input{Pending: pods(1, "24Gi"), Limits: Limits{MaxNodesTotal: 5, Nodes: 2}, Groups: []Group{zeroOrMax(group("zom", "", 0, 0, 4))}},
			"", "zom: atomic scale-up exceeds cluster node count limit"},
		{"cores-total counts every node of the increase",
			Input{Pending: pods(1, "24Gi"), Limits: Limits{MaxCores: 10},
				Groups: []Group{zeroOrMax(group("zom", "100", 0, 0, 4)), group("ng", "", 0, 0, 10)}},
			"ng+1", ""},
		{"cores-total that fits the whole increase",
			Input{Pending: pods(1, "24Gi"), Limits: Limits{MaxCores: 16}, Groups: []Group{zeroOrMax(group("zom", "", 0, 0, 4))}}, "zom+4", ""},
		{"max-nodes-per-scaleup does not cut the increase",
			Input{Pending: pods(1, "24Gi"), Limits: Limits{MaxNodesPerScaleUp: 2}, Groups: []Group{zeroOrMax(group("zom", "", 0, 0, 4))}},
			"zom+4", ""},
		{"a chosen zero-or-max group is not balanced",
			Input{Pending: pods(2, "24Gi"), Balance: true, Similarity: DefaultSimilarity(),
				Groups: []Group{zeroOrMax(group("zom", "120", 0, 0, 4)), group("b", "100", 0, 0, 10)}},
			"zom+4", ""},
		{"a pod that fits no node of the group triggers nothing",
			Input{Pending: pods(1, "48Gi"), Groups: []Group{zeroOrMax(group("zom", "", 0, 0, 4))}}, "", "Insufficient memory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkPlan(t, tt.in, tt.want, tt.reason)
		})
	}
}

// A zero-or-max group is in no other group's balanced set, nor has one.
func TestZeroOrMaxNotBalanced(t *testing.T) {
	zom, b, c := zeroOrMax(group("zom", "", 0, 0, 4)), group("b", "", 0, 0, 10), group("c", "", 0, 0, 10)
	in := Input{Balance: true, Similarity: DefaultSimilarity()}
	ready := []Group{zom, b, c}
	if got := setKey(balancedSet(in, b, ready)); got != setKey([]Group{b, c}) {
		t.Fatalf("b's set %q, want b and c", got)
	}
	if got := setKey(balancedSet(in, zom, ready)); got != "zom" {
		t.Fatalf("zom's set %q, want zom alone", got)
	}
	zom.ZeroOrMax = false
	if got := setKey(balancedSet(in, b, []Group{zom, b, c})); got != setKey([]Group{zom, b, c}) {
		t.Fatalf("without the option b's set is %q, want all three (the groups are similar)", got)
	}
}

// The expander compares a zero-or-max option at the group's max size, as
// upstream's option does.
func TestZeroOrMaxOptionNodeCount(t *testing.T) {
	g := zeroOrMax(group("zom", "", 1, 0, 4))
	count, incs := zeroOrMaxIncrease(g, 2)
	if count != 4 || len(incs) != 1 || incs[0].Delta != 3 || incs[0].Pods != 2 {
		t.Fatalf("zeroOrMaxIncrease = %d, %+v; want 4 and one increase of 3 for 2 pods", count, incs)
	}
}
