package conformance

import (
	"slices"
	"testing"
)

func TestSimulatorConformance(t *testing.T) {
	for _, c := range Cases() {
		t.Run(c.Name, func(t *testing.T) {
			res, err := RunSimulator(&c)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			if c.Want != "" {
				want = []string{c.Want}
			}
			if !slices.Equal(res.Feasible, want) {
				t.Fatalf("feasible nodes %v, want %v; errors %v", res.Feasible, want, res.Errors)
			}
			if res.Placed != c.Want {
				t.Fatalf("FilterSchedulable placed the pod on %q, want %q", res.Placed, c.Want)
			}
			if c.WantFilter == "" {
				return
			}
			for _, fe := range res.Errors {
				if fe.Filter == c.WantFilter {
					return
				}
			}
			t.Fatalf("no node failed with %s; errors %v", c.WantFilter, res.Errors)
		})
	}
}
