package vpafidelity

import (
	"flag"
	"slices"
	"testing"
)

var limitRanges = flag.Bool("vpafidelity.limitranges", false,
	"keep the generated LimitRanges in the updater comparison (open findings, see docs/vpa.md)")

// fixedPodCases is the updater seed set every `make test` compares.
const fixedPodCases = 3000

// TestUpdaterFidelity compares the updater's processed recommendation,
// priority and decision, and the webhook's patch, with upstream's on fixedPodCases random pods
// (-vpafidelity.streams of them from -vpafidelity.seed when set), without
// LimitRanges unless -vpafidelity.limitranges is set.
func TestUpdaterFidelity(t *testing.T) {
	n, first := fixedPodCases, int64(1)
	if *streams > 0 {
		n, first = *streams, *firstSeed
	}
	kinds, failed := map[string]int{}, 0
	for seed := first; seed < first+int64(n); seed++ {
		c := GeneratePodCase(seed)
		if !*limitRanges {
			c.LimitRange.Spec.Limits = nil
		}
		all := append(CompareUpdater(c), CompareWebhook(c)...)
		for _, k := range Kinds(all) {
			kinds[k]++
		}
		ds := slices.DeleteFunc(all, counted)
		if len(ds) > 0 {
			failed++
			if failed <= 5 {
				t.Errorf("pod case disagrees:\n%s%v", c, ds)
			}
		}
	}
	t.Logf("vpa-fidelity updater: %d pod cases (LimitRanges %v), %d disagree; cases by kind %v", n, *limitRanges, failed, kinds)
}
