package template

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/kscale/kscale/internal/fixture"
)

func TestDaemonSetPods(t *testing.T) {
	node := fixture.Node("n", fixture.WithNodeLabels(map[string]string{"pool": "a"}))
	limitsOnly := fixture.DaemonSet("logs", fixture.WithLimits("cpu", "200m", "memory", "100Mi"))
	limitsOnly.Spec.Template.Spec.Containers[0].Resources.Requests = nil
	elsewhere := fixture.DaemonSet("gpu", fixture.WithNodeSelector(map[string]string{"pool": "gpu"}))
	pods := DaemonSetPods(node, []*appsv1.DaemonSet{limitsOnly, elsewhere}, true)
	if len(pods) != 1 {
		t.Fatalf("got %d pods, want 1", len(pods))
	}
	req := pods[0].Spec.Containers[0].Resources.Requests
	if req.Cpu().MilliValue() != 200 || req.Memory().Value() != 100<<20 {
		t.Fatalf("limits-only container requests %v", req)
	}
	if pods[0].Spec.NodeName != "n" {
		t.Fatalf("pod not bound to the template node")
	}
}
