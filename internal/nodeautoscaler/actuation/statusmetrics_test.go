package actuation

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/kscale/kscale/internal/nodeautoscaler/scaledown"
)

// TestStatusMetrics checks unremovable_nodes_count's upstream reasons,
// scale_down_in_cooldown and pending_node_deletions.
func TestStatusMetrics(t *testing.T) {
	m, err := newStatusMetrics(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	plan := scaledown.Plan{Skipped: "in cooldown after a scale-up (--scale-down-delay-after-add)", Blocked: []scaledown.Blocked{
		{Node: "a", Reason: scaledown.ReasonHighUtilization}, {Node: "b", Reason: scaledown.ReasonPDB},
		{Node: "c", Reason: scaledown.ReasonBarePod}, {Node: "d", Reason: scaledown.ReasonOnCompletionPod},
		{Node: "e", Reason: scaledown.ReasonBeingDeleted}, {Node: "f", Reason: scaledown.ReasonMinSize},
		{Node: "h", Reason: scaledown.ReasonAtomicScaleDownFailed},
		// Not counted: upstream drops these nodes from the candidates.
		{Node: "g", Reason: scaledown.ReasonGroupCooldown},
	}}
	m.observe(plan, scaledown.InFlight{Empty: 2, NonEmpty: 1})
	for reason, want := range map[string]float64{"NotUnderutilized": 1, "BlockedByPod": 2, "BlockedByOnCompletionPod": 1,
		"CurrentlyBeingDeleted": 1, "NodeGroupMinSizeReached": 1, "AtomicScaleDownFailed": 1, "NoPlaceToMovePods": 0, "NoReason": 0} {
		if got := testutil.ToFloat64(m.unremovable.WithLabelValues(reason)); got != want {
			t.Errorf("unremovable_nodes_count{reason=%q} = %v, want %v", reason, got, want)
		}
	}
	if n := testutil.CollectAndCount(m.unremovable); n != len(upstreamUnremovableReasons) {
		t.Errorf("%d reason series, want all %d of upstream's", n, len(upstreamUnremovableReasons))
	}
	if got := testutil.ToFloat64(m.cooldown); got != 1 {
		t.Errorf("scale_down_in_cooldown = %v, want 1", got)
	}
	if got := testutil.ToFloat64(m.pending); got != 3 {
		t.Errorf("pending_node_deletions = %v, want 3", got)
	}
	m.observe(scaledown.Plan{Skipped: "scale-down is disabled"}, scaledown.InFlight{})
	if got := testutil.ToFloat64(m.cooldown); got != 0 {
		t.Errorf("scale_down_in_cooldown when disabled = %v, want 0", got)
	}
}
