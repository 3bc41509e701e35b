package scheduling

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kscale/kscale/internal/fixture"
)

func TestPodRequests(t *testing.T) {
	cases := []struct {
		name    string
		pod     *corev1.Pod
		wantCPU int64
		wantGPU int64
	}{
		{name: "app containers sum", pod: fixture.Pod("p", fixture.WithRequests("cpu", "1"), fixture.WithContainer("b", "cpu", "500m")), wantCPU: 1500},
		{name: "init peak wins", pod: fixture.Pod("p", fixture.WithRequests("cpu", "1"), fixture.WithInitContainer("i", false, "cpu", "3")), wantCPU: 3000},
		{name: "sidecar adds to apps", pod: fixture.Pod("p", fixture.WithRequests("cpu", "1"), fixture.WithInitContainer("s", true, "cpu", "1")), wantCPU: 2000},
		{name: "sidecar before init adds to its peak", pod: fixture.Pod("p", fixture.WithRequests("cpu", "1"),
			fixture.WithInitContainer("s", true, "cpu", "1"), fixture.WithInitContainer("i", false, "cpu", "3")), wantCPU: 4000},
		{name: "overhead", pod: withOverhead(fixture.Pod("p", fixture.WithRequests("cpu", "1")), "250m"), wantCPU: 1250},
		{name: "extended resource", pod: fixture.Pod("p", fixture.WithRequests("cpu", "1", "nvidia.com/gpu", "2")), wantCPU: 1000, wantGPU: 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := PodRequests(tc.pod)
			if r.MilliCPU != tc.wantCPU || r.Scalar("nvidia.com/gpu") != tc.wantGPU || r.Pods != 1 {
				t.Fatalf("requests = %+v", r)
			}
		})
	}
}

func withOverhead(p *corev1.Pod, cpu string) *corev1.Pod {
	p.Spec.Overhead = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}
	return p
}

func TestInsufficientReasonAndMaxFit(t *testing.T) {
	alloc := Resources{MilliCPU: 4000, Memory: 8 << 30, EphemeralStorage: 10 << 30, Pods: 10,
		Scalars: []Scalar{{Name: "nvidia.com/gpu", Value: 1}}}
	cases := []struct {
		name       string
		req, used  Resources
		wantReason string
		wantFit    int64
	}{
		{name: "fits", req: Resources{MilliCPU: 1000, Pods: 1}, wantFit: 4},
		{name: "cpu", req: Resources{MilliCPU: 1000, Pods: 1}, used: Resources{MilliCPU: 3500}, wantReason: "Insufficient cpu"},
		{name: "memory", req: Resources{Memory: 9 << 30, Pods: 1}, wantReason: "Insufficient memory"},
		{name: "ephemeral", req: Resources{EphemeralStorage: 11 << 30, Pods: 1}, wantReason: "Insufficient ephemeral-storage"},
		{name: "pods", req: Resources{Pods: 1}, used: Resources{Pods: 10}, wantReason: "Too many pods"},
		{name: "zero request fits up to the pod count", req: Resources{Pods: 1}, used: Resources{Pods: 4}, wantFit: 6},
		{name: "gpu", req: Resources{Pods: 1, Scalars: []Scalar{{Name: "nvidia.com/gpu", Value: 2}}}, wantReason: "Insufficient nvidia.com/gpu"},
		{name: "missing extended resource", req: Resources{Pods: 1, Scalars: []Scalar{{Name: "example.com/fpga", Value: 1}}},
			wantReason: "Insufficient example.com/fpga"},
		{name: "over-committed node", req: Resources{MilliCPU: 1, Pods: 1}, used: Resources{MilliCPU: 5000}, wantReason: "Insufficient cpu"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := InsufficientReason(&tc.req, &tc.used, &alloc); got != tc.wantReason {
				t.Fatalf("reason = %q, want %q", got, tc.wantReason)
			}
			if got := MaxFit(&tc.req, &tc.used, &alloc); got != tc.wantFit {
				t.Fatalf("max fit = %d, want %d", got, tc.wantFit)
			}
		})
	}
}

func TestFromListScalars(t *testing.T) {
	r := FromList(corev1.ResourceList{
		"hugepages-2Mi":                 resource.MustParse("1Gi"),
		"example.com/dongle":            resource.MustParse("3"),
		"requests.example.com/quota":    resource.MustParse("1"),
		corev1.ResourcePods:             resource.MustParse("110"),
		corev1.ResourceEphemeralStorage: resource.MustParse("1Gi"),
	})
	if r.Scalar("hugepages-2Mi") != 1<<30 || r.Scalar("example.com/dongle") != 3 || r.Pods != 110 || r.EphemeralStorage != 1<<30 {
		t.Fatalf("resources = %+v", r)
	}
	if r.Scalar("requests.example.com/quota") != 1 {
		t.Fatalf("domain-prefixed name dropped: %+v", r)
	}
}
