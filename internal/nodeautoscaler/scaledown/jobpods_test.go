package scaledown

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kscale/kscale/internal/fixture"
)

// TestPlanJobPods checks --skip-nodes-with-job-pods: by default a Job's pod
// keeps its node (the Zalando fork's rule), and with the flag off it moves
// as any replicated pod, as upstream does (Job is one of the replicated
// kinds in cluster-autoscaler/simulator/drainability/rules/replicated/rule.go,
// release 1.36, and no rule blocks on Jobs).
func TestPlanJobPods(t *testing.T) {
	jobKind := schema.GroupVersionKind{Group: "batch", Version: "v1", Kind: "Job"}
	job := fixture.WithOwner(jobKind, "job", "uid-job")
	tests := []planCase{
		{
			name:     "fork default: a Job pod keeps its node",
			world:    new(world).node("a", "g").node("b", "g").barePod("p", "a", "100m", job),
			unneeded: []string{"b"},
			blocked:  map[string]Reason{"a": ReasonJobPod},
		},
		{
			name:     "upstream: a Job pod moves",
			world:    new(world).node("a", "g").node("b", "g").node("c", "g").pod("x", "c", "1").barePod("p", "a", "100m", job),
			cfg:      func(c *Config) { c.SkipNodesWithJobPods = false },
			unneeded: []string{"b", "a"},
			blocked:  map[string]Reason{"c": ReasonNoPlaceToMove},
		},
		{
			name: "upstream: a Job pod still obeys safe-to-evict=false",
			world: new(world).node("a", "g").node("b", "g").
				barePod("p", "a", "100m", job, annotate(SafeToEvictAnnotation, "false")),
			cfg:      func(c *Config) { c.SkipNodesWithJobPods = false },
			unneeded: []string{"b"},
			blocked:  map[string]Reason{"a": ReasonNotSafeToEvict},
		},
	}
	runPlanCases(t, tests)
}
