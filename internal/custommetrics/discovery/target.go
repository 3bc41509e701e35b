package discovery

import (
	"maps"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// FilterPortName names the container port of a metrics-filter sidecar
// (`kscale metrics-filter`) in a kube-apiserver pod.
const FilterPortName = "metrics-filter"

// Target is one pod to scrape.
type Target struct {
	// Key is the pod's namespace and name.
	Key types.NamespacedName
	// UID is the pod's UID; a new UID under the same name is a new series.
	UID types.UID
	// IP is the pod's IP address.
	IP string
	// Labels are the pod's labels, for label-selector queries.
	Labels map[string]string
	// FilterPort is the port of the pod's metrics-filter sidecar (the
	// container port named FilterPortName), or 0 without one.
	FilterPort int32
}

// targetFor returns the target for pod, or false when it is not to be
// scraped: no IP yet, being deleted, or finished.
func targetFor(pod *corev1.Pod) (Target, bool) {
	if pod.DeletionTimestamp != nil || pod.Status.PodIP == "" {
		return Target{}, false
	}
	if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return Target{}, false
	}
	return Target{
		Key:        types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name},
		UID:        pod.UID,
		IP:         pod.Status.PodIP,
		Labels:     maps.Clone(pod.Labels),
		FilterPort: filterPort(pod),
	}, true
}

// filterPort returns the TCP container port named FilterPortName, or 0.
func filterPort(pod *corev1.Pod) int32 {
	for _, c := range pod.Spec.Containers {
		for _, p := range c.Ports {
			if p.Name == FilterPortName && (p.Protocol == "" || p.Protocol == corev1.ProtocolTCP) {
				return p.ContainerPort
			}
		}
	}
	return 0
}

func (t Target) equal(o Target) bool {
	return t.Key == o.Key && t.UID == o.UID && t.IP == o.IP && t.FilterPort == o.FilterPort && maps.Equal(t.Labels, o.Labels)
}
