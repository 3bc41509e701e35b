package nodetemplate

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/cloudprovider"
)

func rl(pairs ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i+1 < len(pairs); i += 2 {
		out[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return out
}

func liveNode(name, it string, capacity, alloc corev1.ResourceList) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{LabelInstanceType: it}},
		Status: corev1.NodeStatus{Capacity: capacity, Allocatable: alloc}}
}

func assertList(t *testing.T, what string, got, want corev1.ResourceList) {
	t.Helper()
	for r, q := range want {
		g := got[r]
		if g.Cmp(q) != 0 {
			t.Errorf("%s %s = %s, want %s", what, r, g.String(), q.String())
		}
	}
}

// TestSpecNumbers checks the acceptance numbers of node-autoscaler.md §2.3.
func TestSpecNumbers(t *testing.T) {
	p2x := cloudprovider.InstanceType{Name: "p2.xlarge", Capacity: rl("cpu", "4", "memory", "62464Mi", "pods", "110", "nvidia.com/gpu", "1")}
	p216 := cloudprovider.InstanceType{Name: "p2.16xlarge", Capacity: rl("cpu", "64", "memory", "732Gi", "pods", "110", "nvidia.com/gpu", "16")}
	e := NewEstimator()
	c, a := e.Resources(p2x)
	assertList(t, "unseen capacity", c, rl("cpu", "4", "memory", "62464Mi", "pods", "110", "nvidia.com/gpu", "1"))
	assertList(t, "unseen allocatable", a, rl("cpu", "4", "memory", "62464Mi", "pods", "110", "nvidia.com/gpu", "1"))
	e.Observe([]*corev1.Node{
		liveNode("a", "p2.xlarge", rl("cpu", "4", "memory", "62000Mi", "pods", "100"), rl("cpu", "3700m", "memory", "61800Mi", "pods", "100")),
		liveNode("b", "p2.xlarge", rl("cpu", "4", "memory", "61700Mi", "pods", "99", "nvidia.com/gpu", "1"),
			rl("cpu", "3800m", "memory", "61600Mi", "pods", "99", "nvidia.com/gpu", "1")),
	})
	c, a = e.Resources(p2x)
	assertList(t, "observed capacity", c, rl("cpu", "4", "memory", "61700Mi", "pods", "99", "nvidia.com/gpu", "1"))
	assertList(t, "observed allocatable", a, rl("cpu", "3700m", "memory", "61600Mi", "pods", "99", "nvidia.com/gpu", "1"))
	c, a = e.Resources(p216)
	assertList(t, "synthesized capacity", c, rl("cpu", "64", "memory", "732Gi", "pods", "110", "nvidia.com/gpu", "16"))
	assertList(t, "synthesized allocatable", a, rl("cpu", "63700m", "memory", "749368Mi", "pods", "110", "nvidia.com/gpu", "16"))

	// Unlike the fork, a synthesized entry follows later reservations.
	e.Observe([]*corev1.Node{liveNode("c", "m5.large", rl("cpu", "2", "memory", "8Gi"), rl("cpu", "1", "memory", "7Gi"))})
	_, a = e.Resources(p216)
	assertList(t, "refreshed allocatable", a, rl("cpu", "63", "memory", "731Gi"))
}

// TestObserveMinimumCountsMissingAsZero checks that a resource only some
// live nodes of a type report is not learnt for the type: the per-resource
// minimum over the type's nodes takes a missing resource as zero (spec
// node-autoscaler.md §2.3, step 2; the fork's Refresh in
// cloudprovider/aws/aws_manager.go took the minimum over the nodes that
// reported the resource only).
func TestObserveMinimumCountsMissingAsZero(t *testing.T) {
	m5 := cloudprovider.InstanceType{Name: "m5.large", Capacity: rl("cpu", "2", "memory", "8Gi", "pods", "110")}
	plain := func(name string) *corev1.Node {
		return liveNode(name, "m5.large", rl("cpu", "2", "memory", "8Gi", "pods", "110"), rl("cpu", "1900m", "memory", "7Gi", "pods", "110"))
	}
	extra := func(name string) *corev1.Node {
		return liveNode(name, "m5.large", rl("cpu", "2", "memory", "8Gi", "pods", "110", "amd.com/gpu", "1", "example.com/fpga", "2"),
			rl("cpu", "1900m", "memory", "7Gi", "pods", "110", "amd.com/gpu", "1", "example.com/fpga", "2"))
	}
	tests := []struct {
		name  string
		nodes []*corev1.Node
	}{
		{"extended resources on the first node only", []*corev1.Node{extra("a"), plain("b")}},
		{"extended resources on a later node only", []*corev1.Node{plain("a"), extra("b")}},
		{"extended resources between plain nodes", []*corev1.Node{plain("a"), extra("b"), plain("c")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := NewEstimator()
			e.Observe(tc.nodes)
			c, a := e.Resources(m5)
			for _, r := range []corev1.ResourceName{"amd.com/gpu", "example.com/fpga"} {
				if q, ok := c[r]; ok && !q.IsZero() {
					t.Errorf("capacity %s = %s, want none", r, q.String())
				}
				if q, ok := a[r]; ok && !q.IsZero() {
					t.Errorf("allocatable %s = %s, want none", r, q.String())
				}
			}
			assertList(t, "allocatable", a, rl("cpu", "1900m", "memory", "7Gi", "pods", "110"))
		})
	}
	e := NewEstimator()
	e.Observe([]*corev1.Node{extra("a"), extra("b")})
	_, a := e.Resources(m5)
	assertList(t, "every node has them", a, rl("amd.com/gpu", "1", "example.com/fpga", "2"))
}
