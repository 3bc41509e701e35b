package scaleup

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/fixture"
)

// TestPodScaleUpDelayAnnotation checks upstream's per-pod
// cluster-autoscaler.kubernetes.io/pod-scale-up-delay: it raises
// --new-pod-scale-up-delay for the pod and is ignored when shorter or
// malformed.
func TestPodScaleUpDelayAnnotation(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 10, 0, 0, time.UTC)
	tests := []struct {
		name       string
		flag       time.Duration
		annotation string
		age        time.Duration
		considered bool
	}{
		{"no annotation, old enough", 30 * time.Second, "", time.Minute, true},
		{"annotation raises the delay", 30 * time.Second, "5m", time.Minute, false},
		{"older than the annotation", 30 * time.Second, "5m", 6 * time.Minute, true},
		{"a shorter annotation does not lower the flag", 2 * time.Minute, "10s", time.Minute, false},
		{"malformed: the flag applies", 0, "soon", time.Second, true},
		{"flag zero, annotation set", 0, "1m", 30 * time.Second, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := fixture.Pod("p", fixture.WithCreationTime(metav1.NewTime(now.Add(-tt.age))))
			if tt.annotation != "" {
				p.Annotations = map[string]string{PodScaleUpDelayAnnotation: tt.annotation}
			}
			out, skipped := PodFilter{NewPodScaleUpDelay: tt.flag, ExpendablePriorityCutoff: -10}.Apply([]*corev1.Pod{p}, now)
			if got := len(out) == 1; got != tt.considered || (!got && skipped.TooNew != 1) {
				t.Errorf("considered %v (skipped %+v), want %v", got, skipped, tt.considered)
			}
		})
	}
}
