package vpafidelity

import (
	"flag"
	"testing"
)

var limitRanges = flag.Bool("vpafidelity.limitranges", true,
	"keep the generated LimitRanges in the updater comparison (false: compare the pods without them)")

// fixedPodCases is the updater seed set every `make test` compares.
const fixedPodCases = 3000

// TestUpdaterFidelity compares the updater's processed recommendation,
// priority and decision, and the webhook's patch, with upstream's on fixedPodCases random pods
// (-vpafidelity.streams of them from -vpafidelity.seed when set), each
// under its generated LimitRange unless -vpafidelity.limitranges=false.
func TestUpdaterFidelity(t *testing.T) {
	n, first := fixedPodCases, int64(1)
	if *streams > 0 {
		n, first = *streams, *firstSeed
	}
	kinds, families, failed := map[string]int{}, map[string]int{}, 0
	for seed := first; seed < first+int64(n); seed++ {
		c := GeneratePodCase(seed)
		if !*limitRanges {
			c.LimitRange.Spec.Limits = nil
		}
		ds, all := comparePod(c)
		for _, k := range Kinds(all) {
			kinds[k]++
		}
		if len(ds) > 0 {
			failed++
			if *limitRanges {
				families[limitRangeFamily(c, ds)]++
			}
			if failed <= 5 {
				t.Errorf("pod case disagrees:\n%s%v", c, ds)
			}
		}
	}
	t.Logf("vpa-fidelity updater: %d pod cases (LimitRanges %v), %d disagree; cases by kind %v", n, *limitRanges, failed, kinds)
	if *limitRanges {
		t.Logf("disagreeing cases by what explains them (\"\": nothing): %v", families)
	}
}
