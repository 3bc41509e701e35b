package updater

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"

	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/vpa/recommendation"
)

// runsWith sets container app's status.containerStatuses[].resources, as
// the kubelet reports them while or after an in-place resize.
func runsWith(requests corev1.ResourceList) fixture.PodOption {
	return func(p *corev1.Pod) {
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", Resources: &corev1.ResourceRequirements{Requests: requests}}}
	}
}

// TestAssessReadsActualResources checks that the update priority and the
// eviction requirements compare the recommendation with the resources the
// container runs with (status before spec), as upstream's priority
// processor and scaling-direction admission do through
// pkg/utils/resources/resourcehelpers.go ContainerRequestsAndLimits
// (vertical-pod-autoscaler v1.7.3).
func TestAssessReadsActualResources(t *testing.T) {
	// The spec still asks for 3 CPUs (outside [500m, 2]); the container was
	// resized to the target and runs with 850m.
	resized := fixture.Pod("p", fixture.WithRequests("cpu", "3", "memory", "1Gi"), started(13*time.Hour),
		runsWith(rl("cpu", "850m", "memory", "1Gi")))
	if got := assess(resized); got.OutsideRange || got.ScaleUp || got.ResourceDiff != 0 || got.ShouldUpdate(defaultThresholds) {
		t.Errorf("priority from the spec, not the running resources: %+v", got)
	}
	// A pending resize: the spec asks for the target, the container still
	// runs with 3 CPUs.
	pending := fixture.Pod("p", fixture.WithRequests("cpu", "850m", "memory", "1Gi"), started(13*time.Hour),
		runsWith(rl("cpu", "3", "memory", "1Gi")))
	if got := assess(pending); !got.OutsideRange || !got.ShouldUpdate(defaultThresholds) {
		t.Errorf("a container running outside the range must be updated: %+v", got)
	}
	// Without status resources the spec is read.
	if got := assess(fixture.Pod("p", fixture.WithRequests("cpu", "3", "memory", "1Gi"), started(13*time.Hour))); !got.OutsideRange {
		t.Errorf("spec requests outside the range: %+v", got)
	}

	higher := []*vpav1.EvictionRequirement{{Resources: []corev1.ResourceName{"cpu"}, ChangeRequirement: vpav1.TargetHigherThanRequests}}
	scaledDown := fixture.Pod("p", fixture.WithRequests("cpu", "1", "memory", "1Gi"), runsWith(rl("cpu", "400m", "memory", "1Gi")))
	processed := recommendation.Process(scaledDown, scenario7, nil, recommendation.Limits{})
	if !PassesEvictionRequirements(scaledDown, processed, higher) {
		t.Error("target 850m is above the running 400m: the requirement must pass")
	}
	noRequest := fixture.Pod("p", fixture.WithRequests("cpu", "1", "memory", "1Gi"), runsWith(rl("cpu", "1")))
	processed = recommendation.Process(noRequest, scenario7, nil, recommendation.Limits{})
	if !PassesEvictionRequirements(noRequest, processed, higher) {
		t.Error("a container running without a memory request always passes")
	}
}
