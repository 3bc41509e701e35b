package nodeautoscaler

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/cloudprovider/nodetemplate"
	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/nodeautoscaler/clusterstate"
	"github.com/kscale/kscale/internal/nodeautoscaler/options"
)

// TestTemplatesDropTransientTaints checks which taints of a live node a
// template keeps: upstream's node-condition, rescheduler and autoscaler
// taints, startup and status taints go; the others stay.
func TestTemplatesDropTransientTaints(t *testing.T) {
	o := options.Default()
	o.StatusTaints = []string{"example.com/status"}
	rules := clusterstate.ReadinessRules{StartupTaints: o.AllStartupTaints()}
	ignore := ignoreTaint(rules, o.StatusTaints)
	tests := []struct {
		key  string
		drop bool
	}{
		{corev1.TaintNodeNotReady, true}, {corev1.TaintNodeUnreachable, true}, {corev1.TaintNodeUnschedulable, true},
		{corev1.TaintNodeMemoryPressure, true}, {corev1.TaintNodeDiskPressure, true}, {corev1.TaintNodeNetworkUnavailable, true},
		{corev1.TaintNodePIDPressure, true}, {"node.cloudprovider.kubernetes.io/uninitialized", true},
		{"node.cloudprovider.kubernetes.io/shutdown", true}, {"cloud.google.com/impending-node-termination", true},
		{"NodeWithImpairedVolumes", true}, {"CriticalAddonsOnly", true}, {clusterstate.ToBeDeletedTaint, true},
		{clusterstate.DeletionCandidateTaint, true}, {options.ZalandoNotReadyTaint, true},
		{"startup-taint.cluster-autoscaler.kubernetes.io/cni", true}, {"status-taint.cluster-autoscaler.kubernetes.io/x", true},
		{"example.com/status", true},
		{"dedicated", false}, {"nvidia.com/gpu", false}, {"status-taint.cluster-autoscaler.kubernetes.io/", false},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			live := fixture.Node("n", fixture.WithTaints(corev1.Taint{Key: tt.key, Effect: corev1.TaintEffectNoSchedule}))
			got := nodetemplate.FromLiveNode("g", live, ignore)
			if dropped := len(got.Spec.Taints) == 0; dropped != tt.drop {
				t.Fatalf("taint %q dropped = %v, want %v", tt.key, dropped, tt.drop)
			}
		})
	}
}

// TestZalandoNotReadyTaintFlag checks --zalando-not-ready-taint: by
// default (the fork's rule) a node carrying zalando.org/node-not-ready is
// still starting and the key is dropped from templates; with the flag off
// the key is an ordinary taint, as upstream, where only --startup-taint
// keys and the startup-taint prefix mark a starting node
// (cluster-autoscaler/utils/taints/taints.go, release 1.36).
func TestZalandoNotReadyTaintFlag(t *testing.T) {
	for _, on := range []bool{true, false} {
		o := options.Default()
		o.ZalandoNotReady = on
		rules := clusterstate.ReadinessRules{StartupTaints: o.AllStartupTaints()}
		live := fixture.Node("n", fixture.WithTaints(corev1.Taint{Key: options.ZalandoNotReadyTaint, Effect: corev1.TaintEffectNoSchedule}))
		if ready := rules.IsReady(live); ready == on {
			t.Errorf("flag %v: node with the taint ready = %v, want %v", on, ready, !on)
		}
		kept := len(nodetemplate.FromLiveNode("g", live, ignoreTaint(rules, o.StatusTaints)).Spec.Taints) == 1
		if kept == on {
			t.Errorf("flag %v: template keeps the taint = %v, want %v", on, kept, !on)
		}
	}
}
