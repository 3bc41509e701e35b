package recommendation

import (
	"math"
	"testing"

	corev1 "k8s.io/api/core/v1"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"

	"github.com/kscale/kscale/internal/fixture"
)

// TestProcessHugeCPU checks CPU quantities whose millicores do not fit in
// an int64 (near 1Ei): the request is the recommended quantity itself and a
// proportional limit is clamped to MaxInt64 millicores, as upstream's
// GetProportionalLimit (pkg/utils/vpa/limit_and_request_scaling.go,
// vertical-pod-autoscaler v1.7.3) does; nothing turns negative.
func TestProcessHugeCPU(t *testing.T) {
	huge := rl("cpu", "1Ei", "memory", "1Gi")
	tests := []struct {
		name      string
		withLimit bool
		policy    *vpav1.PodResourcePolicy
	}{
		{name: "target 1Ei, no limit"},
		{name: "target 1Ei with a 1:2 limit", withLimit: true},
		{name: "target 1Ei under maxAllowed 1Ei", policy: policy(vpav1.ContainerResourcePolicy{ContainerName: "*", MaxAllowed: huge})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := []fixture.PodOption{fixture.WithRequests("cpu", "1", "memory", "1Gi")}
			if tc.withLimit {
				opts = append(opts, fixture.WithLimits("cpu", "2", "memory", "2Gi"))
			}
			pod := fixture.Pod("p", opts...)
			out := Process(pod, rec(same(pod.Spec.Containers[0].Name, huge)), tc.policy, Limits{})
			if len(out.Containers) != 1 {
				t.Fatalf("containers = %+v", out.Containers)
			}
			c := out.Containers[0]
			for field, q := range map[string]corev1.ResourceList{"request": c.Requests, "target": c.Target, "upper bound": c.UpperBound} {
				got := q[cpu]
				if got.Cmp(huge[cpu]) != 0 {
					t.Errorf("%s cpu = %s, want 1Ei", field, got.String())
				}
			}
			if !tc.withLimit {
				return
			}
			if got := c.Limits[cpu]; got.Sign() <= 0 || got.MilliValue() != math.MaxInt64 {
				t.Errorf("limit cpu = %s, want %dm", got.String(), int64(math.MaxInt64))
			}
		})
	}
}
