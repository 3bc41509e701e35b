package updater

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/fixture"
)

// TestObservedContainersAnnotation checks how the vpaObservedContainers
// annotation limits the containers the priority counts, as upstream's
// parseVpaObservedContainers (pkg/updater/priority/update_priority_calculator.go)
// and ParseVpaObservedContainersValue (pkg/utils/annotations/vpa_observed_containers.go,
// vertical-pod-autoscaler v1.7.3): a value that is not a comma-separated
// list of container names joined by ", " (each a DNS-1123 label) is
// ignored as if absent; an empty value lists no container.
func TestObservedContainersAnnotation(t *testing.T) {
	tests := []struct {
		value   *string
		counted bool // whether container app (3 CPUs, outside the range) counts
	}{
		{value: nil, counted: true},
		{value: strPtr("sidecar"), counted: false},
		{value: strPtr("app"), counted: true},
		{value: strPtr("sidecar, app"), counted: true},
		{value: strPtr("sidecar, other"), counted: false},
		{value: strPtr(""), counted: false},
		{value: strPtr("sidecar,other"), counted: true},
		{value: strPtr("sidecar, Not_A_Name"), counted: true},
		{value: strPtr("sidecar,  other"), counted: true},
		{value: strPtr("sidecar, "), counted: true},
	}
	for _, tc := range tests {
		name := "absent"
		if tc.value != nil {
			name = "\"" + *tc.value + "\""
		}
		t.Run(name, func(t *testing.T) {
			pod := fixture.Pod("p", fixture.WithRequests("cpu", "3", "memory", "1Gi"), func(p *corev1.Pod) {
				p.Spec.Containers[0].Name = "app"
				if tc.value != nil {
					p.Annotations = map[string]string{ObservedContainersAnnotation: *tc.value}
				}
			})
			if got := assess(pod); got.OutsideRange != tc.counted {
				t.Errorf("container app counted = %v, want %v (%+v)", got.OutsideRange, tc.counted, got)
			}
		})
	}
}

func strPtr(s string) *string { return &s }
