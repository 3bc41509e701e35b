package scaledown

import (
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/fixture"
)

func ptr[T any](v T) *T { return &v }

// withOptions sets a group's own options in the world.
func (w *world) withOptions(group string, o cloudprovider.Options) *world {
	for i := range w.groups {
		if w.groups[i].ID == group {
			w.groups[i].Options = o
		}
	}
	return w
}

// A group with its own unneeded time loses its empty node at its own
// time; the other group's node waits for the global 10 minutes.
func TestPlanGroupUnneededTime(t *testing.T) {
	w := new(world).node("fast-1", "fast").node("slow-1", "slow").
		withOptions("fast", cloudprovider.Options{ScaleDownUnneededTime: ptr(2 * time.Minute)})
	p := mustPlanner(t, testConfig())
	for _, s := range []struct {
		at    time.Duration
		empty []string
	}{
		{0, []string{}},
		{time.Minute, []string{}},
		{2 * time.Minute, []string{"fast-1"}},
		{9 * time.Minute, []string{"fast-1"}},
		{10 * time.Minute, []string{"fast-1", "slow-1"}},
	} {
		plan, err := p.Plan(w.input(t0.Add(s.at)))
		if err != nil {
			t.Fatal(err)
		}
		if got := names(plan.Empty); !slices.Equal(got, s.empty) {
			t.Errorf("at %v: empty = %v, want %v", s.at, got, s.empty)
		}
	}
}

func TestPlanGroupOptions(t *testing.T) {
	gpu := fixture.WithCapacity("nvidia.com/gpu", "4")
	tests := []struct {
		name     string
		build    func() *world
		unneeded []string
		highUtil []string
		// notHighUtil are nodes under their group's threshold (they may be
		// blocked for other reasons).
		notHighUtil []string
	}{
		{name: "own utilization threshold", build: func() *world {
			return new(world).node("lenient-1", "lenient").node("strict-1", "strict").node("room", "").
				pod("a", "lenient-1", "2400m").pod("b", "strict-1", "2400m").
				withOptions("lenient", cloudprovider.Options{ScaleDownUtilizationThreshold: ptr(0.7)})
		}, unneeded: []string{"lenient-1"}, highUtil: []string{"strict-1"}},
		{name: "GPU threshold applies to GPU nodes only", build: func() *world {
			w := new(world).node("gpu-1", "gpu", gpu).node("cpu-1", "gpu").node("room", "")
			w.pods = append(w.pods, fixture.Pod("g", fixture.WithRequests("cpu", "100m", "nvidia.com/gpu", "3"), fixture.OnNode("gpu-1"), fixture.Running()))
			return w.pod("c", "cpu-1", "3").
				withOptions("gpu", cloudprovider.Options{ScaleDownGPUUtilizationThreshold: ptr(0.8)})
		}, highUtil: []string{"cpu-1"}, notHighUtil: []string{"gpu-1"}},
		{name: "ignore daemonset utilization", build: func() *world {
			w := new(world).node("ds-1", "ds").node("plain-1", "plain").node("room", "")
			for _, n := range []string{"ds-1", "plain-1"} {
				w.pods = append(w.pods, fixture.Pod("ds-"+n, fixture.WithRequests("cpu", "3", "memory", "128Mi"), fixture.OnNode(n),
					fixture.WithOwner(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "DaemonSet"}, "ds", "uid-ds"), fixture.Running()))
			}
			return w.withOptions("ds", cloudprovider.Options{IgnoreDaemonSetsUtilization: ptr(true)})
		}, unneeded: []string{"ds-1"}, highUtil: []string{"plain-1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := tc.build()
			plan, err := mustPlanner(t, testConfig()).Plan(w.input(t0))
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]bool{}
			for _, c := range plan.Unneeded {
				got[c.Node.Name] = true
			}
			for _, n := range tc.unneeded {
				if !got[n] {
					t.Errorf("%s is not unneeded; unneeded %v, blocked %v", n, names(plan.Unneeded), plan.Blocked)
				}
			}
			r := reasons(plan.Blocked)
			for _, n := range tc.highUtil {
				if r[n] != ReasonHighUtilization {
					t.Errorf("%s: reason %q, want %q", n, r[n], ReasonHighUtilization)
				}
			}
			for _, n := range tc.notHighUtil {
				if r[n] == ReasonHighUtilization {
					t.Errorf("%s is blocked by utilization: %v", n, plan.Blocked)
				}
			}
		})
	}
}

// TestGPUUtilizationThresholdFlag: a node with GPUs is measured by its GPU
// share against --scale-down-gpu-utilization-threshold, whatever
// --scale-down-utilization-threshold says.
func TestGPUUtilizationThresholdFlag(t *testing.T) {
	gpu := fixture.WithCapacity("nvidia.com/gpu", "4")
	for _, tc := range []struct {
		util, gpuUtil float64
		want          bool // the GPU node (3 of 4 GPUs requested) is under its threshold
	}{
		{0.5, 0.5, false}, {0.5, 0.8, true}, {0.9, 0.5, false},
	} {
		w := new(world).node("gpu-1", "gpu", gpu).node("room", "")
		w.pods = append(w.pods, fixture.Pod("g", fixture.WithRequests("cpu", "100m", "nvidia.com/gpu", "3"), fixture.OnNode("gpu-1"), fixture.Running()))
		cfg := testConfig()
		cfg.UtilizationThreshold, cfg.GPUUtilizationThreshold = tc.util, tc.gpuUtil
		plan, err := mustPlanner(t, cfg).Plan(w.input(t0))
		if err != nil {
			t.Fatal(err)
		}
		if under := reasons(plan.Blocked)["gpu-1"] != ReasonHighUtilization; under != tc.want {
			t.Errorf("threshold %v, GPU threshold %v: under = %v, want %v (blocked %v)", tc.util, tc.gpuUtil, under, tc.want, plan.Blocked)
		}
	}
}
