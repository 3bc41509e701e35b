package snapfidelity

import (
	"testing"
)

// TestGenerateClaims checks that make test's 40 seeds hold every kind of
// claims, on running and on pending pods, and pending pods whose volumes
// are in a zone of a group and in one of none.
func TestGenerateClaims(t *testing.T) {
	seen := map[string]int{}
	for seed := int64(1); seed <= 40; seed++ {
		c := Generate(seed)
		zones := map[string]bool{}
		for _, g := range c.Groups {
			zones[g.Zone] = true
		}
		for _, w := range c.Workloads {
			if w.Claims == "" {
				continue
			}
			if len(w.Bound) > 0 {
				seen[w.Claims+" running"]++
			}
			if w.Pending > 0 {
				seen[w.Claims+" pending"]++
			}
			for _, z := range w.ZonesOfPending[:min(w.Pending, len(w.ZonesOfPending))] {
				if w.Claims == ClaimsZonal {
					seen["zonal pending in a group's zone"] += b2i(zones[z])
					seen["zonal pending in no group's zone"] += b2i(!zones[z])
				}
			}
		}
	}
	for _, want := range []string{ClaimsLate + " running", ClaimsLate + " pending", ClaimsLateZ1 + " pending", ClaimsZonal + " running",
		ClaimsImmediate + " pending", ClaimsEphemeral + " running", ClaimsEphemeral + " pending", "zonal pending in a group's zone", "zonal pending in no group's zone"} {
		if seen[want] == 0 {
			t.Errorf("seeds 1 to 40 generate no %s; seen %v", want, seen)
		}
	}
	t.Logf("seeds 1 to 40: %v", seen)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
