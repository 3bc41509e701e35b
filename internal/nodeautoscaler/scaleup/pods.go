package scaleup

import (
	"cmp"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// PodFilter decides which pending pods scale-up considers.
type PodFilter struct {
	// NewPodScaleUpDelay skips pods younger than this.
	NewPodScaleUpDelay time.Duration
	// ExpendablePriorityCutoff skips pods with a lower priority.
	ExpendablePriorityCutoff int
}

// PodScaleUpDelayAnnotation is upstream's per-pod scale-up delay: a Go
// duration that can only raise --new-pod-scale-up-delay for the pod.
const PodScaleUpDelayAnnotation = "cluster-autoscaler.kubernetes.io/pod-scale-up-delay"

// scaleUpDelay is the pod's minimum age: --new-pod-scale-up-delay, raised
// by a longer PodScaleUpDelayAnnotation. A shorter or malformed value is
// ignored, as upstream ignores it (with a log line there).
func (f PodFilter) scaleUpDelay(p *corev1.Pod) time.Duration {
	raw, ok := p.Annotations[PodScaleUpDelayAnnotation]
	if !ok {
		return f.NewPodScaleUpDelay
	}
	d, err := time.ParseDuration(raw)
	if err != nil {
		return f.NewPodScaleUpDelay
	}
	return max(d, f.NewPodScaleUpDelay)
}

// Skipped counts pods left out by a PodFilter.
type Skipped struct {
	// TooNew pods are younger than the scale-up delay.
	TooNew int
	// Expendable pods are below the priority cutoff.
	Expendable int
}

// Apply returns the pods scale-up should consider at now.
func (f PodFilter) Apply(pods []*corev1.Pod, now time.Time) ([]*corev1.Pod, Skipped) {
	var out []*corev1.Pod
	var s Skipped
	for _, p := range pods {
		switch {
		case priority(p) < int32(f.ExpendablePriorityCutoff):
			s.Expendable++
		case now.Sub(p.CreationTimestamp.Time) < f.scaleUpDelay(p):
			s.TooNew++
		default:
			out = append(out, p)
		}
	}
	return out, s
}

func priority(p *corev1.Pod) int32 {
	if p.Spec.Priority == nil {
		return 0
	}
	return *p.Spec.Priority
}

// Oldest keeps the n oldest pods (by creation time, then namespace and
// name, so pods created at the same moment are cut the same way whatever
// their input order); n <= 0 keeps all.
func Oldest(pods []*corev1.Pod, n int) []*corev1.Pod {
	if n <= 0 || len(pods) <= n {
		return pods
	}
	sorted := slices.Clone(pods)
	slices.SortStableFunc(sorted, func(a, b *corev1.Pod) int {
		return cmp.Or(a.CreationTimestamp.Compare(b.CreationTimestamp.Time), cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	return sorted[:n]
}
