package scaledown

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kscale/kscale/internal/fixture"
)

func TestDisruptionsAllowed(t *testing.T) {
	pods := func(ready, unready int) []*corev1.Pod {
		var out []*corev1.Pod
		for i := range ready + unready {
			opts := []fixture.PodOption{fixture.WithLabels(map[string]string{"app": "web"})}
			if i < ready {
				opts = append(opts, fixture.Running())
			}
			out = append(out, fixture.Pod(fmt.Sprintf("p%d", i), opts...))
		}
		terminating := fixture.Pod("leaving", fixture.WithLabels(map[string]string{"app": "web"}), fixture.Running())
		terminating.DeletionTimestamp = &metav1.Time{}
		other := fixture.Pod("other", fixture.Running())
		return append(out, terminating, other)
	}
	none := fixture.PDB("web", "web")
	none.Spec.MaxUnavailable = nil
	tests := []struct {
		name     string
		pdb      *policyv1.PodDisruptionBudget
		ready    int
		unready  int
		expected int
		want     int32
	}{
		{"maxUnavailable 1, all ready", fixture.PDB("web", "web"), 10, 0, 10, 1},
		{"maxUnavailable 1, one down", fixture.PDB("web", "web"), 9, 1, 10, 0},
		{"maxUnavailable 1, one missing", fixture.PDB("web", "web"), 9, 0, 10, 0},
		{"minAvailable 50%", fixture.PDB("web", "web", fixture.MinAvailable(intstr.FromString("50%"))), 10, 0, 10, 5},
		{"minAvailable 3 of 2", fixture.PDB("web", "web", fixture.MinAvailable(intstr.FromInt32(3))), 2, 0, 0, 0},
		{"maxUnavailable 30% rounds up", fixture.PDB("web", "web", fixture.MaxUnavailable(intstr.FromString("30%"))), 10, 0, 10, 3},
		{"neither field", none, 4, 0, 0, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := DisruptionsAllowed(tc.pdb, pods(tc.ready, tc.unready), tc.expected); got != tc.want {
				t.Fatalf("got %d, want %d", got, tc.want)
			}
		})
	}
}
