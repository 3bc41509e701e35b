package template

import corev1 "k8s.io/api/core/v1"

// gpuResources are the GPU vendors' extended resource names, in upstream's
// order (cluster-autoscaler pkg/utils/gpu).
var gpuResources = []corev1.ResourceName{"nvidia.com/gpu", "habana.ai/gaudi", "gpu.intel.com/xe", "amd.com/gpu", "microsoft.com/directx"}

// gpuTypeLabels are the node labels providers put the GPU type in: AWS,
// Cluster API and GCE.
var gpuTypeLabels = []string{"k8s.amazonaws.com/accelerator", "cluster-api/accelerator", "cloud.google.com/gke-accelerator"}

// GPUGeneric is the GPU type of a node that has GPUs but no type label,
// upstream's "generic".
const GPUGeneric = "generic"

// GPUOf returns the GPU resource name and GPU type a node (or template)
// is counted under in the scale-up and scale-down metrics: the first GPU
// resource with a non-zero capacity and the provider's accelerator label
// (GPUGeneric without one); both empty for a node without GPUs.
func GPUOf(n *corev1.Node) (resource, gpuType string) {
	if n == nil {
		return "", ""
	}
	for _, r := range gpuResources {
		if q, ok := n.Status.Capacity[r]; ok && !q.IsZero() {
			resource = string(r)
			break
		}
	}
	if resource == "" {
		return "", ""
	}
	for _, l := range gpuTypeLabels {
		if v := n.Labels[l]; v != "" {
			return resource, v
		}
	}
	return resource, GPUGeneric
}
