package actuation

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/nodeautoscaler/scaledown"
)

// EnableDSEvictionAnnotation on a DaemonSet pod, "true" or "false",
// decides whether the pod is evicted when its node is removed, whatever
// --daemonset-eviction-for-empty-nodes and
// --daemonset-eviction-for-occupied-nodes say (upstream's
// cluster-autoscaler.kubernetes.io/enable-ds-eviction).
const EnableDSEvictionAnnotation = "cluster-autoscaler.kubernetes.io/enable-ds-eviction"

// DaemonSetPodsToEvict returns the DaemonSet pods among pods that are
// evicted when their node is removed: those annotated
// EnableDSEvictionAnnotation=true, and with byDefault those not annotated
// "false". Mirror pods, finished pods and pods already terminating are
// left out.
func DaemonSetPodsToEvict(pods []*corev1.Pod, byDefault bool) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range pods {
		if !scaledown.IsDaemonSetPod(p) || scaledown.IsMirrorPod(p) || p.DeletionTimestamp != nil ||
			p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		evict := byDefault
		switch p.Annotations[EnableDSEvictionAnnotation] {
		case "true":
			evict = true
		case "false":
			evict = false
		}
		if evict {
			out = append(out, p)
		}
	}
	return out
}
