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

// TestPodLimitRangeAsUpstream covers the pod LimitRange fitting that
// hack/vpafidelity found different from upstream v1.7.3 (issue 25): under a
// pod item a container without a recommendation gets its requests as a
// target (no bounds), is scaled with the others and capped to its policy;
// a recommended container missing a resource counts 0 for it; limits count
// with the pod item's default (the container item's does not count); with
// no limit counted nothing is scaled.
func TestPodLimitRangeAsUpstream(t *testing.T) {
	twoContainers := fixture.Pod("p", fixture.WithRequests("cpu", "1", "memory", "1Gi"), fixture.WithLimits("cpu", "2"),
		fixture.WithContainer("side", "cpu", "1", "memory", "1Gi"))
	tests := []struct {
		name   string
		rec    *vpav1.RecommendedPodResources
		policy *vpav1.PodResourcePolicy
		ranges []corev1.LimitRange
		want   map[string]res // target per container in the result
	}{
		{
			// Seed 1 of the oracle's shape: the pod item makes upstream
			// process "side", which has no recommendation.
			name:   "a container without a recommendation gets its requests, capped to its policy",
			rec:    rec(same("app", rl("cpu", "3"))),
			policy: policy(vpav1.ContainerResourcePolicy{ContainerName: "side", MaxAllowed: rl("memory", "512Mi")}),
			ranges: []corev1.LimitRange{limitRange(corev1.LimitTypePod, corev1.LimitRangeItem{Min: rl("cpu", "100m")})},
			want:   map[string]res{"app": {cpu: 3000}, "side": {cpu: 1000, mem: 512 << 20}},
		},
		{
			name:   "a container switched off stays out",
			rec:    rec(same("app", rl("cpu", "3"))),
			policy: policy(vpav1.ContainerResourcePolicy{ContainerName: "side", Mode: ptr(vpav1.ContainerScalingModeOff)}),
			ranges: []corev1.LimitRange{limitRange(corev1.LimitTypePod, corev1.LimitRangeItem{Min: rl("cpu", "100m")})},
			want:   map[string]res{"app": {cpu: 3000}},
		},
		{
			name:   "no pod item: nothing is inserted",
			rec:    rec(same("app", rl("cpu", "3"))),
			ranges: []corev1.LimitRange{limitRange(corev1.LimitTypeContainer, corev1.LimitRangeItem{Min: rl("cpu", "100m")})},
			want:   map[string]res{"app": {cpu: 3000}},
		},
		{
			name: "Max scales by the limits; the container item's default limit does not count for side",
			rec:  rec(same("app", rl("cpu", "3")), same("side", rl("cpu", "1"))),
			ranges: []corev1.LimitRange{
				limitRange(corev1.LimitTypePod, corev1.LimitRangeItem{Max: rl("cpu", "3")}),
				limitRange(corev1.LimitTypeContainer, corev1.LimitRangeItem{Default: rl("cpu", "10")}),
			},
			// app's limit 2 x 3 = 6 is the only one counted: 3 x 3/6.
			want: map[string]res{"app": {cpu: 1500}, "side": {cpu: 500}},
		},
		{
			name:   "Min with no limit counted scales nothing",
			rec:    rec(same("side", rl("memory", "1Mi"))),
			policy: policy(vpav1.ContainerResourcePolicy{ContainerName: "app", Mode: ptr(vpav1.ContainerScalingModeOff)}),
			ranges: []corev1.LimitRange{limitRange(corev1.LimitTypePod, corev1.LimitRangeItem{Min: rl("memory", "4Gi")})},
			want:   map[string]res{"side": {mem: 1 << 20}},
		},
		{
			name:   "a recommended container missing the resource counts 0, not its request",
			rec:    rec(same("app", rl("memory", "1Gi")), same("side", rl("cpu", "100m"))),
			ranges: []corev1.LimitRange{limitRange(corev1.LimitTypePod, corev1.LimitRangeItem{Max: rl("cpu", "1")})},
			// app's cpu limit counts 0 (no cpu recommendation): side's limit
			// is its request, 100m, within the Max.
			want: map[string]res{"app": {mem: 1 << 30}, "side": {cpu: 100}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Process(twoContainers, tc.rec, tc.policy, MergeLimitRanges(tc.ranges))
			targets := map[string]res{}
			for _, c := range got.Containers {
				targets[c.Name] = toUnits(c.Target)
			}
			if !maps.EqualFunc(targets, tc.want, maps.Equal) {
				t.Errorf("targets = %v, want %v", targets, tc.want)
			}
		})
	}
}

// TestZeroRequestKeepsLimit: a request processed down to 0 (a pod Max
// scaled below 1m) leaves the container's limit alone, as upstream does,
// instead of setting a limit of 0 (oracle seeds 690 and 1055).
func TestZeroRequestKeepsLimit(t *testing.T) {
	pod := fixture.Pod("p", fixture.WithRequests("cpu", "254m"), fixture.WithLimits("cpu", "3502m"))
	for _, tc := range []struct {
		name   string
		target string
		want   res
	}{
		{name: "zero target", target: "0", want: res{}},
		{name: "non-zero target", target: "127m", want: res{cpu: 1751}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Process(pod, rec(same("app", rl("cpu", tc.target))), nil, Limits{})
			if len(got.Containers) != 1 {
				t.Fatalf("got %d containers, want 1", len(got.Containers))
			}
			if g := toUnits(got.Containers[0].Limits); !maps.Equal(g, tc.want) {
				t.Errorf("limits = %v, want %v", g, tc.want)
			}
		})
	}
}
