package recommendation

import (
	"maps"
	"testing"

	corev1 "k8s.io/api/core/v1"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"

	"github.com/kscale/kscale/internal/fixture"
)

// TestContainerLimitRangeAsUpstream covers the container LimitRange capping
// that hack/vpafidelity found different from upstream v1.7.3 (issue 25): Min
// is applied before Max, so Max wins where the two conflict; both go
// through the request/limit ratio whatever controlledValues says; Max
// does not apply to a container without a limit or default limit.
func TestContainerLimitRangeAsUpstream(t *testing.T) {
	tests := []struct {
		name   string
		pod    *corev1.Pod
		rec    vpav1.RecommendedContainerResources
		policy *vpav1.PodResourcePolicy
		item   corev1.LimitRangeItem
		want   res
	}{
		{
			// Seed 6 of the oracle: Min 1106Mi, Max 15484Mi through a
			// request/limit ratio of 39Mi/1070Mi gives a Max of 564Mi.
			name: "Max through the ratio wins over a larger Min",
			pod:  fixture.Pod("p", fixture.WithRequests("memory", "39Mi"), fixture.WithLimits("memory", "1070Mi")),
			rec:  same("app", rl("memory", "75Mi")),
			item: corev1.LimitRangeItem{Min: rl("memory", "1106Mi"), Max: rl("memory", "15484Mi"), Default: rl("memory", "4424Mi")},
			want: res{mem: 591784935},
		},
		{
			name:   "RequestsOnly: Max goes through the ratio too",
			pod:    fixture.Pod("p", fixture.WithRequests("cpu", "100m"), fixture.WithLimits("cpu", "400m")),
			rec:    same("app", rl("cpu", "2")),
			policy: policy(vpav1.ContainerResourcePolicy{ContainerName: "*", ControlledValues: ptr(vpav1.ContainerControlledValuesRequestsOnly)}),
			item:   corev1.LimitRangeItem{Max: rl("cpu", "1")},
			want:   res{cpu: 250},
		},
		{
			name: "Max does not bound a container without a limit or default limit",
			pod:  fixture.Pod("p", fixture.WithRequests("cpu", "100m")),
			rec:  same("app", rl("cpu", "2")),
			item: corev1.LimitRangeItem{Max: rl("cpu", "1")},
			want: res{cpu: 2000},
		},
		{
			name: "Min applies without a limit",
			pod:  fixture.Pod("p", fixture.WithRequests("cpu", "100m")),
			rec:  same("app", rl("cpu", "10m")),
			item: corev1.LimitRangeItem{Min: rl("cpu", "50m")},
			want: res{cpu: 50},
		},
		{
			name: "Min through the ratio wins when the default limit is under the request",
			pod:  fixture.Pod("p", fixture.WithRequests("cpu", "400m")),
			rec:  same("app", rl("cpu", "10m")),
			item: corev1.LimitRangeItem{Min: rl("cpu", "50m"), Default: rl("cpu", "200m")},
			want: res{cpu: 100},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			limits := MergeLimitRanges([]corev1.LimitRange{limitRange(corev1.LimitTypeContainer, tc.item)})
			got := Process(tc.pod, rec(tc.rec), tc.policy, limits)
			if len(got.Containers) != 1 {
				t.Fatalf("got %d containers, want 1", len(got.Containers))
			}
			if g := toUnits(got.Containers[0].Target); !maps.Equal(g, tc.want) {
				t.Errorf("target = %v, want %v", g, tc.want)
			}
		})
	}
}
