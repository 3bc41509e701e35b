package nodetemplate

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/cloudprovider"
)

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
