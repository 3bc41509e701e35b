package vpafidelity

import (
	"flag"
	"io"
	"slices"
	"testing"

	"k8s.io/autoscaler/vertical-pod-autoscaler/pkg/features"
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
	quietKlog(t)
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

// TestInPlaceFidelity compares the in-place decision (resize, evict or
// nothing) for one pod with upstream's, on fixedBudgetCases random cases.
func TestInPlaceFidelity(t *testing.T) {
	if err := features.MutableFeatureGate.Set("InPlace=true"); err != nil {
		t.Fatalf("enabling upstream's InPlace gate: %v", err)
	}
	quietKlog(t)
	n, first := fixedBudgetCases, int64(1)
	if *streams > 0 {
		n, first = *streams, *firstSeed
	}
	failed, deliberate := 0, 0
	for seed := first; seed < first+int64(n); seed++ {
		c := GenerateInPlaceCase(seed)
		all := CompareInPlace(c)
		ds := slices.DeleteFunc(slices.Clone(all), counted)
		if len(all) > len(ds) {
			deliberate++
		}
		if len(ds) > 0 {
			failed++
			if failed <= 8 {
				t.Errorf("in-place case disagrees: %s: %v", c, ds)
			}
		}
	}
	t.Logf("vpa-fidelity in-place: %d cases, %d disagree; %d with the deliberate inplace-mode-disruption-rules", n, failed, deliberate)
}

// quietKlog discards klog's output for the test: upstream's restriction
// factory logs every controller without replicas as an error.
func quietKlog(t *testing.T) {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	for name, value := range map[string]string{"logtostderr": "false", "stderrthreshold": "FATAL"} {
		if err := fs.Set(name, value); err != nil {
			t.Fatalf("setting klog's %s: %v", name, err)
		}
	}
	klog.SetOutput(io.Discard)
	t.Cleanup(func() {
		_ = fs.Set("logtostderr", "true")
		_ = fs.Set("stderrthreshold", "ERROR")
	})
}
