package recommendation

import (
	"maps"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"

	"github.com/kscale/kscale/internal/fixture"
)

func rl(pairs ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i+1 < len(pairs); i += 2 {
		out[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return out
}

func rec(containers ...vpav1.RecommendedContainerResources) *vpav1.RecommendedPodResources {
	return &vpav1.RecommendedPodResources{ContainerRecommendations: containers}
}

// same returns a recommendation whose target and both bounds are target.
func same(name string, target corev1.ResourceList) vpav1.RecommendedContainerResources {
	return vpav1.RecommendedContainerResources{ContainerName: name, Target: target, LowerBound: target, UpperBound: target}
}

func policy(cps ...vpav1.ContainerResourcePolicy) *vpav1.PodResourcePolicy {
	return &vpav1.PodResourcePolicy{ContainerPolicies: cps}
}

func ptr[T any](v T) *T { return &v }

func limitRange(typ corev1.LimitType, item corev1.LimitRangeItem) corev1.LimitRange {
	item.Type = typ
	return corev1.LimitRange{Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{item}}}
}

// want is the expected processing of one container, as strings of units
// (millicores for cpu, bytes for memory).
type want struct {
	name     string
	requests map[corev1.ResourceName]int64
	limits   map[corev1.ResourceName]int64
	lower    map[corev1.ResourceName]int64
	upper    map[corev1.ResourceName]int64
	notes    []string
}

func toUnits(list corev1.ResourceList) map[corev1.ResourceName]int64 {
	out := map[corev1.ResourceName]int64{}
	for name, q := range list {
		out[name] = units(name, q)
	}
	return out
}

type res = map[corev1.ResourceName]int64

const (
	cpu = corev1.ResourceCPU
	mem = corev1.ResourceMemory
)

func TestProcess(t *testing.T) {
	scenario6 := vpav1.RecommendedContainerResources{
		ContainerName:  "app",
		Target:         rl("cpu", "500m", "memory", "380258472"),
		LowerBound:     rl("cpu", "500m", "memory", "380258472"),
		UpperBound:     rl("cpu", "500m", "memory", "380258472"),
		UncappedTarget: rl("cpu", "587m", "memory", "380258472"),
	}
	uncapped := same("app", rl("cpu", "587m", "memory", "380258472"))
	maxCPU := policy(vpav1.ContainerResourcePolicy{ContainerName: "app", MaxAllowed: rl("cpu", "500m")})
	requestsOnly := policy(vpav1.ContainerResourcePolicy{
		ContainerName: "*", MaxAllowed: rl("cpu", "500m"),
		ControlledValues: ptr(vpav1.ContainerControlledValuesRequestsOnly),
	})
	scenario6Pod := fixture.Pod("p", fixture.WithRequests("cpu", "100m", "memory", "128Mi"), fixture.WithLimits("cpu", "200m", "memory", "256Mi"))
	twoContainers := fixture.Pod("p", fixture.WithRequests("cpu", "1", "memory", "1Gi"), fixture.WithLimits("cpu", "1", "memory", "1Gi"),
		fixture.WithContainer("side", "cpu", "1", "memory", "1Gi"),
		func(p *corev1.Pod) { p.Spec.Containers[1].Resources.Limits = rl("cpu", "1", "memory", "1Gi") })

	tests := []struct {
		name   string
		pod    *corev1.Pod
		rec    *vpav1.RecommendedPodResources
		policy *vpav1.PodResourcePolicy
		ranges []corev1.LimitRange
		want   []want
	}{
		{
			name: "scenario 6: RequestsAndLimits keeps the 2:1 limit ratio",
			pod:  scenario6Pod, rec: rec(scenario6), policy: maxCPU,
			want: []want{{name: "app",
				requests: res{cpu: 500, mem: 380258472}, limits: res{cpu: 1000, mem: 760516944},
				lower: res{cpu: 500, mem: 380258472}, upper: res{cpu: 500, mem: 380258472}}},
		},
		{
			name: "scenario 6: an uncapped status target is capped to maxAllowed here too",
			pod:  scenario6Pod, rec: rec(uncapped), policy: maxCPU,
			want: []want{{name: "app",
				requests: res{cpu: 500, mem: 380258472}, limits: res{cpu: 1000, mem: 760516944},
				lower: res{cpu: 500, mem: 380258472}, upper: res{cpu: 500, mem: 380258472},
				notes: []string{"cpu capped to maxAllowed"}}},
		},
		{
			name: "scenario 6: RequestsOnly caps requests at the limits and leaves limits alone",
			pod:  scenario6Pod, rec: rec(scenario6), policy: requestsOnly,
			want: []want{{name: "app",
				requests: res{cpu: 200, mem: 268435456}, limits: res{},
				lower: res{cpu: 200, mem: 268435456}, upper: res{cpu: 200, mem: 268435456},
				notes: []string{"cpu capped to container limit", "memory capped to container limit"}}},
		},
		{
			name: "container mode Off is not processed",
			pod:  scenario6Pod, rec: rec(scenario6),
			policy: policy(vpav1.ContainerResourcePolicy{ContainerName: "app", Mode: ptr(vpav1.ContainerScalingModeOff)}),
		},
		{name: "no recommendation", pod: scenario6Pod},
		{name: "recommendation for another container", pod: scenario6Pod, rec: rec(same("other", rl("cpu", "1")))},
		{
			name: "controlledResources cpu only",
			pod:  scenario6Pod, rec: rec(uncapped),
			policy: policy(vpav1.ContainerResourcePolicy{ContainerName: "*", ControlledResources: &[]corev1.ResourceName{cpu}}),
			want:   []want{{name: "app", requests: res{cpu: 587}, limits: res{cpu: 1174}, lower: res{cpu: 587}, upper: res{cpu: 587}}},
		},
		{
			name: "minAllowed raises target and bounds; the named policy wins over *",
			pod:  fixture.Pod("p"), rec: rec(same("app", rl("cpu", "10m", "memory", "10Mi"))),
			policy: policy(
				vpav1.ContainerResourcePolicy{ContainerName: "*", MinAllowed: rl("cpu", "1")},
				vpav1.ContainerResourcePolicy{ContainerName: "app", MinAllowed: rl("cpu", "50m", "memory", "0")},
			),
			want: []want{{name: "app", requests: res{cpu: 50, mem: 10485760}, limits: res{},
				lower: res{cpu: 50, mem: 10485760}, upper: res{cpu: 50, mem: 10485760},
				notes: []string{"cpu capped to minAllowed"}}},
		},
		{
			name: "container LimitRange Max bounds the scaled limit through the 2:1 ratio",
			pod:  scenario6Pod, rec: rec(same("app", rl("cpu", "900m"))),
			ranges: []corev1.LimitRange{limitRange(corev1.LimitTypeContainer, corev1.LimitRangeItem{Max: rl("cpu", "800m")})},
			want: []want{{name: "app", requests: res{cpu: 400}, limits: res{cpu: 800}, lower: res{cpu: 400}, upper: res{cpu: 400},
				notes: []string{"cpu capped to fit Max in container LimitRange"}}},
		},
		{
			name: "the lowest Max and highest Min of several LimitRanges win; policy wins over LimitRange",
			pod:  fixture.Pod("p", fixture.WithLimits("cpu", "100m")), rec: rec(same("app", rl("cpu", "5", "memory", "1Mi"))),
			policy: policy(vpav1.ContainerResourcePolicy{ContainerName: "app", MaxAllowed: rl("memory", "100Mi")}),
			ranges: []corev1.LimitRange{
				limitRange(corev1.LimitTypeContainer, corev1.LimitRangeItem{Max: rl("cpu", "3"), Min: rl("memory", "64Mi")}),
				limitRange(corev1.LimitTypeContainer, corev1.LimitRangeItem{Max: rl("cpu", "2"), Min: rl("memory", "200Mi")}),
			},
			want: []want{{name: "app", requests: res{cpu: 2000, mem: 104857600}, limits: res{cpu: 2000},
				lower: res{cpu: 2000, mem: 104857600}, upper: res{cpu: 2000, mem: 104857600},
				notes: []string{"cpu capped to fit Max in container LimitRange", "memory capped to fit Min in container LimitRange", "memory capped to maxAllowed"}}},
		},
		{
			name: "a LimitRange default limit is scaled like a container limit",
			pod:  fixture.Pod("p"), rec: rec(same("app", rl("cpu", "200m"))),
			ranges: []corev1.LimitRange{limitRange(corev1.LimitTypeContainer, corev1.LimitRangeItem{Default: rl("cpu", "300m")})},
			want:   []want{{name: "app", requests: res{cpu: 200}, limits: res{cpu: 600}, lower: res{cpu: 200}, upper: res{cpu: 200}}},
		},
		{
			name: "limit equal to request follows the request",
			pod:  fixture.Pod("p", fixture.WithRequests("memory", "1Gi"), fixture.WithLimits("memory", "1Gi")),
			rec:  rec(same("app", rl("memory", "300Mi"))),
			want: []want{{name: "app", requests: res{mem: 314572800}, limits: res{mem: 314572800}, lower: res{mem: 314572800}, upper: res{mem: 314572800}}},
		},
		{
			name: "a limit beyond int64 is clamped with a note",
			pod:  fixture.Pod("p", fixture.WithRequests("memory", "1"), fixture.WithLimits("memory", "8Ei")),
			rec:  rec(same("app", rl("memory", "1Gi"))),
			want: []want{{name: "app", requests: res{mem: 1 << 30}, limits: res{mem: 1<<63 - 1}, lower: res{mem: 1 << 30}, upper: res{mem: 1 << 30},
				notes: []string{"memory limit capped to the largest int64"}}},
		},
		{
			name: "pod LimitRange Max splits proportionally over the limits",
			pod:  twoContainers, rec: rec(same("app", rl("cpu", "3")), same("side", rl("cpu", "1"))),
			ranges: []corev1.LimitRange{limitRange(corev1.LimitTypePod, corev1.LimitRangeItem{Max: rl("cpu", "2")})},
			want: []want{
				{name: "app", requests: res{cpu: 1500}, limits: res{cpu: 1500}, lower: res{cpu: 1500}, upper: res{cpu: 1500},
					notes: []string{"cpu capped to fit the pod LimitRange"}},
				{name: "side", requests: res{cpu: 500}, limits: res{cpu: 500}, lower: res{cpu: 500}, upper: res{cpu: 500},
					notes: []string{"cpu capped to fit the pod LimitRange"}},
			},
		},
		{
			name: "pod LimitRange Min scales requests up, rounding up; a container without recommendation gets its requests as a target and is scaled too",
			pod:  twoContainers, rec: rec(same("app", rl("memory", "1000001"))),
			ranges: []corev1.LimitRange{limitRange(corev1.LimitTypePod, corev1.LimitRangeItem{Min: rl("memory", "4Gi")})},
			want: []want{
				{name: "app", requests: res{mem: 3996283}, limits: res{mem: 3996283},
					lower: res{mem: 4294967296}, upper: res{mem: 4294967296}, notes: []string{"memory capped to fit the pod LimitRange"}},
				{name: "side", requests: res{cpu: 1000, mem: 4290971014}, limits: res{cpu: 1000, mem: 4290971014},
					lower: res{}, upper: res{}, notes: []string{"memory capped to fit the pod LimitRange"}},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Process(tc.pod, tc.rec, tc.policy, MergeLimitRanges(tc.ranges))
			if len(got.Containers) != len(tc.want) {
				t.Fatalf("got %d containers, want %d: %+v", len(got.Containers), len(tc.want), got.Containers)
			}
			for i, w := range tc.want {
				c := got.Containers[i]
				if c.Name != w.name {
					t.Errorf("container %d: name %q, want %q", i, c.Name, w.name)
				}
				for label, pair := range map[string][2]map[corev1.ResourceName]int64{
					"requests": {toUnits(c.Requests), w.requests}, "limits": {toUnits(c.Limits), w.limits},
					"target":     {toUnits(c.Target), w.requests},
					"lowerBound": {toUnits(c.LowerBound), w.lower}, "upperBound": {toUnits(c.UpperBound), w.upper},
				} {
					if !maps.Equal(pair[0], pair[1]) {
						t.Errorf("%s %s = %v, want %v", c.Name, label, pair[0], pair[1])
					}
				}
				if !slices.Equal(c.Notes, w.notes) {
					t.Errorf("%s notes = %q, want %q", c.Name, c.Notes, w.notes)
				}
			}
		})
	}
}
