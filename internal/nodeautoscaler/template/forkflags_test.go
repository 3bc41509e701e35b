package template

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/cloudprovider"
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

// TestFromProviderWithoutLearning checks --learn-allocatable-from-nodes=false
// (a nil estimator): the template's allocatable is the provider's capacity,
// whatever live nodes reserve.
func TestFromProviderWithoutLearning(t *testing.T) {
	it := cloudprovider.InstanceType{Name: "m5.large", Capacity: rl("cpu", "2", "memory", "8Gi", "pods", "110")}
	g := cloudprovider.NodeGroup{ID: "ng", Template: cloudprovider.Template{InstanceTypes: []cloudprovider.InstanceType{it}}}
	learnt := NewEstimator()
	learnt.Observe([]*corev1.Node{liveNode("a", "m5.large", rl("cpu", "2", "memory", "8Gi", "pods", "110"), rl("cpu", "1900m", "memory", "7Gi", "pods", "110"))})
	for _, tc := range []struct {
		name string
		est  *Estimator
		want corev1.ResourceList
	}{
		{"learnt from live nodes", learnt, rl("cpu", "1900m", "memory", "7Gi")},
		{"provider capacity", nil, rl("cpu", "2", "memory", "8Gi")},
	} {
		n, err := FromProvider(g, tc.est, func(string) bool { return false })
		if err != nil {
			t.Fatal(err)
		}
		assertList(t, tc.name, n.Status.Allocatable, tc.want)
	}
}
