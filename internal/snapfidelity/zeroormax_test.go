package snapfidelity

import (
	"testing"

	"github.com/kscale/kscale/internal/cloudprovider"
)

// TestGenerateZeroOrMax checks that make test's 40 seeds hold zero-or-max
// groups, with nodes and without, so the differential covers both of their
// directions.
func TestGenerateZeroOrMax(t *testing.T) {
	withNodes, empty := 0, 0
	for seed := int64(1); seed <= 40; seed++ {
		c := Generate(seed)
		for _, g := range c.Groups {
			if g.AutoscalingOptions[cloudprovider.OptionZeroOrMaxNodeScaling] != "true" {
				continue
			}
			n := 0
			for _, node := range c.Nodes {
				if node.Group == g.Name {
					n++
				}
			}
			if n > 0 {
				withNodes++
			} else {
				empty++
			}
		}
	}
	if withNodes == 0 || empty == 0 {
		t.Fatalf("seeds 1 to 40: %d zero-or-max groups with nodes and %d without; want both", withNodes, empty)
	}
	t.Logf("seeds 1 to 40: %d zero-or-max groups with nodes, %d without", withNodes, empty)
}
