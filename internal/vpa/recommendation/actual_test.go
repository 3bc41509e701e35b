package recommendation

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/fixture"
)

// TestProcessLimitProportionFromActualResources checks that the limit keeps
// the request:limit proportion the container runs with
// (status.containerStatuses[].resources before the spec), as upstream's
// capping and recommendation provider do through
// pkg/utils/resources/resourcehelpers.go ContainerRequestsAndLimits
// (vertical-pod-autoscaler v1.7.3).
func TestProcessLimitProportionFromActualResources(t *testing.T) {
	target := same("app", rl("cpu", "850m", "memory", "1Gi"))
	tests := []struct {
		name   string
		status *corev1.ResourceRequirements
		want   res
	}{
		// spec 1 CPU : 2 CPUs, 1Gi : 2Gi.
		{name: "no status resources: the spec's 1:2", want: res{cpu: 1700, mem: 2 << 30}},
		{name: "resized to 500m : 2 and 512Mi : 2Gi: 1:4",
			status: &corev1.ResourceRequirements{Requests: rl("cpu", "500m", "memory", "512Mi"), Limits: rl("cpu", "2", "memory", "2Gi")},
			want:   res{cpu: 3400, mem: 4 << 30}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pod := fixture.Pod("p", fixture.WithRequests("cpu", "1", "memory", "1Gi"), fixture.WithLimits("cpu", "2", "memory", "2Gi"))
			if tc.status != nil {
				pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: pod.Spec.Containers[0].Name, Resources: tc.status}}
			}
			target.ContainerName = pod.Spec.Containers[0].Name
			out := Process(pod, rec(target), nil, Limits{})
			if len(out.Containers) != 1 {
				t.Fatalf("containers = %+v", out.Containers)
			}
			if got := toUnits(out.Containers[0].Limits); got[cpu] != tc.want[cpu] || got[mem] != tc.want[mem] {
				t.Errorf("limits = %v, want %v", got, tc.want)
			}
		})
	}
}
