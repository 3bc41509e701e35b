package template

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/kscale/kscale/internal/fixture"
)

// TestDaemonSetPodsWithoutRequestsFromLimits checks
// --daemonset-requests-from-limits=false: a DaemonSet container with limits
// only gets no request on the template, as upstream's template pods, which
// are the DaemonSet's pod template unchanged
// (cluster-autoscaler/utils/daemonset/daemonset.go, release 1.36).
func TestDaemonSetPodsWithoutRequestsFromLimits(t *testing.T) {
	node := fixture.Node("n")
	limitsOnly := fixture.DaemonSet("logs", fixture.WithLimits("cpu", "200m", "memory", "100Mi"))
	limitsOnly.Spec.Template.Spec.Containers[0].Resources.Requests = nil
	for _, on := range []bool{true, false} {
		pods := DaemonSetPods(node, []*appsv1.DaemonSet{limitsOnly}, on)
		if len(pods) != 1 {
			t.Fatalf("requests from limits %v: got %d pods, want 1", on, len(pods))
		}
		got := pods[0].Spec.Containers[0].Resources.Requests.Cpu().MilliValue()
		if want := map[bool]int64{true: 200, false: 0}[on]; got != want {
			t.Errorf("requests from limits %v: cpu request %dm, want %dm", on, got, want)
		}
	}
	if limitsOnly.Spec.Template.Spec.Containers[0].Resources.Requests != nil {
		t.Error("the DaemonSet itself was changed")
	}
}
