package vpafidelity

import (
	"io"
	"testing"

	"k8s.io/klog/v2"
)

// fixedBudgetCases is the budget seed set every `make test` compares.
const fixedBudgetCases = 3000

// TestBudgetFidelity compares which pods of one controller the updater
// evicts within one loop with upstream's eviction restriction, on
// fixedBudgetCases random cases (-vpafidelity.streams of them from
// -vpafidelity.seed when set).
func TestBudgetFidelity(t *testing.T) {
	n, first := fixedBudgetCases, int64(1)
	if *streams > 0 {
		n, first = *streams, *firstSeed
	}
	// Upstream logs every controller without replicas as an error.
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	defer klog.LogToStderr(true)
	failed := 0
	for seed := first; seed < first+int64(n); seed++ {
		c := GenerateBudgetCase(seed)
		if ds := CompareBudget(c); len(ds) > 0 {
			failed++
			if failed <= 5 {
				t.Errorf("budget case disagrees: %s: %v", c, ds)
			}
		}
	}
	t.Logf("vpa-fidelity budget: %d cases, %d disagree", n, failed)
}
