package input

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/vpa/model"
)

// PodInfo is what the model needs of a pod.
type PodInfo struct {
	// ID names the pod.
	ID model.PodID
	// Labels are the pod's labels.
	Labels map[string]string
	// Containers are the regular containers' names; init containers (and
	// sidecars) are left out, so their metrics are dropped.
	Containers []string
	// Terminal is true for Succeeded or Failed pods.
	Terminal bool
}

// PodInfoFromPod converts a pod; ok is false for a Pending pod, which the
// recommender does not track.
func PodInfoFromPod(p *corev1.Pod) (info PodInfo, ok bool) {
	if p.Status.Phase == corev1.PodPending || p.Status.Phase == "" {
		return PodInfo{}, false
	}
	names := make([]string, 0, len(p.Spec.Containers))
	for _, c := range p.Spec.Containers {
		names = append(names, c.Name)
	}
	return PodInfo{
		ID:         model.PodID{Namespace: p.Namespace, Name: p.Name},
		Labels:     p.Labels,
		Containers: names,
		Terminal:   p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed,
	}, true
}
