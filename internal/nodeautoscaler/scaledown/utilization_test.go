package scaledown

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kscale/kscale/internal/fixture"
)

// TestIgnoreUtilization checks --ignore-daemonsets-utilization and
// --ignore-mirror-pods-utilization: the ignored pods' requests leave the
// node's utilization, so a node kept busy only by them becomes unneeded.
func TestIgnoreUtilization(t *testing.T) {
	dsKind := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "DaemonSet"}
	w := new(world).node("ds", "g").node("mirror", "g").node("app", "g").
		barePod("agent", "ds", "3", fixture.WithOwner(dsKind, "agent", "uid-agent")).
		barePod("static", "mirror", "3", fixture.WithAnnotations(map[string]string{MirrorPodAnnotation: "x"})).
		pod("web", "app", "3")
	tests := []struct {
		name         string
		ignoreDS     bool
		ignoreMirror bool
		wantUnneeded []string
	}{
		{"upstream default counts both", false, false, []string{}},
		{"daemonsets ignored", true, false, []string{"ds"}},
		{"mirror pods ignored", false, true, []string{"mirror"}},
		{"both ignored", true, true, []string{"ds", "mirror"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := testConfig()
			c.IgnoreDaemonSetsUtilization, c.IgnoreMirrorPodsUtilization = tt.ignoreDS, tt.ignoreMirror
			plan, err := mustPlanner(t, c).Plan(w.input(t0))
			if err != nil {
				t.Fatal(err)
			}
			got := names(plan.Unneeded)
			slices.Sort(got)
			if !slices.Equal(got, tt.wantUnneeded) {
				t.Errorf("unneeded = %v, want %v", got, tt.wantUnneeded)
			}
		})
	}
}

// TestScaleDownUnreadyEnabled checks --scale-down-unready-enabled=false:
// an unready node stays unneeded but is never chosen.
func TestScaleDownUnreadyEnabled(t *testing.T) {
	for _, enabled := range []bool{true, false} {
		w := new(world).node("unready", "g").node("busy", "g").pod("x", "busy", "3")
		w.nodes[0].Ready = false
		c := testConfig()
		c.UnreadyEnabled = enabled
		p := mustPlanner(t, c)
		if _, err := p.Plan(w.input(t0)); err != nil {
			t.Fatal(err)
		}
		plan, err := p.Plan(w.input(t0.Add(c.UnreadyTime)))
		if err != nil {
			t.Fatal(err)
		}
		want := []string{}
		if enabled {
			want = []string{"unready"}
		}
		if got := names(plan.Empty); !slices.Equal(got, want) || len(plan.Unneeded) != 1 {
			t.Errorf("enabled %v: empty %v (unneeded %d), want %v and 1 unneeded", enabled, got, len(plan.Unneeded), want)
		}
	}
}
