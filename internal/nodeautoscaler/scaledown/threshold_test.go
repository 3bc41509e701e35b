package scaledown

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kscale/kscale/internal/fixture"
)

// TestPlanThresholdInclusive checks that a node whose utilization equals
// --scale-down-utilization-threshold (or the GPU threshold on a GPU node) is
// a removal candidate, as upstream's eligibility check
// (cluster-autoscaler/core/scaledown/eligibility/eligibility.go, release
// 1.36) keeps a node only when its utilization is above the threshold.
func TestPlanThresholdInclusive(t *testing.T) {
	dsKind := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "DaemonSet"}
	gpu := func(n string) fixture.NodeOption { return fixture.WithCapacity("nvidia.com/gpu", n) }
	tests := []planCase{
		{
			name: "utilization equal to the threshold makes a candidate",
			world: new(world).node("a", "g").node("b", "g").node("c", "g").
				pod("p", "a", "1").pod("x", "c", "3"),
			cfg:      func(c *Config) { c.UtilizationThreshold = 0.25 },
			unneeded: []string{"b", "a"},
			blocked:  map[string]Reason{"c": ReasonHighUtilization},
		},
		{
			name: "utilization just above the threshold keeps the node",
			world: new(world).node("a", "g").node("b", "g").node("c", "g").
				pod("p", "a", "1001m").pod("x", "c", "3"),
			cfg:      func(c *Config) { c.UtilizationThreshold = 0.25 },
			unneeded: []string{"b"},
			blocked:  map[string]Reason{"a": ReasonHighUtilization, "c": ReasonHighUtilization},
		},
		{
			name: "GPU utilization equal to the GPU threshold makes a candidate",
			world: new(world).node("gpu", "g", gpu("2")).node("other", "g", gpu("2")).
				pod("p", "gpu", "100m", fixture.WithRequests("cpu", "100m", "nvidia.com/gpu", "1")).
				pod("q", "other", "100m", fixture.WithRequests("cpu", "100m", "nvidia.com/gpu", "1")),
			cfg:      func(c *Config) { c.GPUUtilizationThreshold = 0.5 },
			unneeded: []string{"gpu"},
			blocked:  map[string]Reason{"other": ReasonNoPlaceToMove},
		},
		{
			name: "threshold 0: a node running only DaemonSet pods is removed when they are ignored",
			world: new(world).node("a", "g").node("b", "g").pod("x", "b", "1").
				barePod("ds", "a", "100m", fixture.WithOwner(dsKind, "ds", "uid-ds")),
			cfg: func(c *Config) {
				c.UtilizationThreshold = 0
				c.IgnoreDaemonSetsUtilization = true
			},
			unneeded: []string{"a"},
			blocked:  map[string]Reason{"b": ReasonHighUtilization},
		},
	}
	runPlanCases(t, tests)
}
