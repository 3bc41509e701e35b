package target

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
)

// Candidate is a VPA with its resolved target.
type Candidate struct {
	// VPA is the VerticalPodAutoscaler.
	VPA *vpav1.VerticalPodAutoscaler
	// Target is the result of Resolver.Resolve for VPA.
	Target *Target
}

// Controlling returns the VPA among candidates that controls the pod whose
// top-level controller is owner, or nil. A candidate matches when it is in
// the pod's namespace, its target is owner and its selector matches the
// pod's labels. When several match, the oldest (by creation time, then by
// name) wins. It is pure.
func Controlling(pod *corev1.Pod, owner *ObjectRef, candidates []Candidate) *vpav1.VerticalPodAutoscaler {
	if owner == nil {
		return nil
	}
	var best *vpav1.VerticalPodAutoscaler
	podLabels := labels.Set(pod.Labels)
	for _, c := range candidates {
		if c.VPA == nil || c.Target == nil || c.VPA.Namespace != pod.Namespace {
			continue
		}
		if c.Target.Ref != *owner || !c.Target.Selector.Matches(podLabels) {
			continue
		}
		if best == nil || older(c.VPA, best) {
			best = c.VPA
		}
	}
	return best
}

// older reports whether a was created before b, breaking ties by name.
func older(a, b *vpav1.VerticalPodAutoscaler) bool {
	ta, tb := a.CreationTimestamp.Time, b.CreationTimestamp.Time
	if !ta.Equal(tb) {
		return ta.Before(tb)
	}
	return a.Name < b.Name
}
