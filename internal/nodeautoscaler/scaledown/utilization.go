package scaledown

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/scheduling"
)

// gpuResources are the extended resources that make a node a GPU node,
// whose utilization is its GPU utilization.
var gpuResources = [...]corev1.ResourceName{"nvidia.com/gpu", "amd.com/gpu"}

// Utilization is requested / allocatable of a node: for a GPU node the GPU
// share, otherwise the larger of the CPU and memory shares. A resource the
// node has none of counts as 0.
func Utilization(requested, allocatable *scheduling.Resources) float64 {
	for _, g := range gpuResources {
		if a := allocatable.Scalar(g); a > 0 {
			return float64(requested.Scalar(g)) / float64(a)
		}
	}
	return max(share(requested.MilliCPU, allocatable.MilliCPU), share(requested.Memory, allocatable.Memory))
}

func share(req, alloc int64) float64 {
	if alloc <= 0 {
		return 0
	}
	return float64(req) / float64(alloc)
}
