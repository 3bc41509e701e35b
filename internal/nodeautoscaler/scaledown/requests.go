package scaledown

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/scheduling"
)

// podRequests returns scheduling.PodRequests(pod) without allocating for the
// common pod: app containers only, requesting CPU, memory and ephemeral
// storage. Any other pod takes the general path.
func podRequests(pod *corev1.Pod) scheduling.Resources {
	if len(pod.Spec.InitContainers) > 0 || pod.Spec.Overhead != nil || pod.Spec.Resources != nil {
		return scheduling.PodRequests(pod)
	}
	r := scheduling.Resources{Pods: 1}
	for i := range pod.Spec.Containers {
		for name, q := range pod.Spec.Containers[i].Resources.Requests {
			switch name {
			case corev1.ResourceCPU:
				r.MilliCPU += q.MilliValue()
			case corev1.ResourceMemory:
				r.Memory += q.Value()
			case corev1.ResourceEphemeralStorage:
				r.EphemeralStorage += q.Value()
			default:
				return scheduling.PodRequests(pod)
			}
		}
	}
	return r
}
