package nodeautoscaler

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/nodeautoscaler/options"
)

// TestScaleUpFromZero checks --scale-up-from-zero: with false, a cluster
// without a ready node gets no scale-up; with a ready node it does.
func TestScaleUpFromZero(t *testing.T) {
	tests := []struct {
		name      string
		fromZero  bool
		readyNode bool
		want      int
	}{
		{"upstream default scales from zero", true, false, 2},
		{"off, no ready node", false, false, 0},
		{"off, a ready node", false, true, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, cloud, cl, _, _, now := newLoop(t, func(o *options.Options) { o.ScaleUpFromZero = tt.fromZero })
			cl.pods = []*corev1.Pod{pendingPod("a", now), pendingPod("b", now)}
			if tt.readyNode {
				// A full node outside the groups: ready, but no room.
				cl.nodes = []*corev1.Node{fixture.Node("other", fixture.WithAllocatable("cpu", "0"))}
			}
			if err := a.RunOnce(t.Context(), now); err != nil {
				t.Fatal(err)
			}
			if _, target, _ := cloud.Group("ng-high"); target != tt.want {
				t.Fatalf("ng-high target %d, want %d", target, tt.want)
			}
		})
	}
}
