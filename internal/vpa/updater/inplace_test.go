package updater

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/fixture"
)

func withCondition(t corev1.PodConditionType, reason string) fixture.PodOption {
	return func(p *corev1.Pod) {
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: t, Status: corev1.ConditionTrue, Reason: reason})
	}
}

func running(p *corev1.Pod) { p.Status.Phase = corev1.PodRunning }

func TestDecideResize(t *testing.T) {
	tests := []struct {
		name    string
		opts    []fixture.PodOption
		resized time.Duration // how long ago the updater first saw the resize
		want    ResizeAction
	}{
		{name: "pending pod", opts: []fixture.PodOption{func(p *corev1.Pod) { p.Status.Phase = corev1.PodPending }}, want: ResizeDefer},
		{name: "running, no resize", opts: []fixture.PodOption{running}, want: ResizeApply},
		{name: "infeasible", opts: []fixture.PodOption{running, withCondition(corev1.PodResizePending, corev1.PodReasonInfeasible)}, want: ResizeEvict},
		{name: "error", opts: []fixture.PodOption{running, withCondition(corev1.PodResizeInProgress, corev1.PodReasonError)}, want: ResizeEvict},
		{name: "deferred 4m", opts: []fixture.PodOption{running, withCondition(corev1.PodResizePending, corev1.PodReasonDeferred)}, resized: 4 * time.Minute, want: ResizeDefer},
		{name: "deferred 6m", opts: []fixture.PodOption{running, withCondition(corev1.PodResizePending, corev1.PodReasonDeferred)}, resized: 6 * time.Minute, want: ResizeEvict},
		{name: "in progress 59m", opts: []fixture.PodOption{running, withCondition(corev1.PodResizeInProgress, "")}, resized: 59 * time.Minute, want: ResizeDefer},
		{name: "in progress 61m", opts: []fixture.PodOption{running, withCondition(corev1.PodResizeInProgress, "")}, resized: 61 * time.Minute, want: ResizeEvict},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := DecideResize(fixture.Pod("p", tc.opts...), now.Add(-tc.resized), now); got != tc.want {
				t.Errorf("DecideResize = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestNoRestartResize(t *testing.T) {
	plain := fixture.Pod("p")
	restart := fixture.Pod("p", func(p *corev1.Pod) {
		p.Spec.Containers[0].ResizePolicy = []corev1.ContainerResizePolicy{{ResourceName: corev1.ResourceMemory, RestartPolicy: corev1.RestartContainer}}
	})
	if !noRestartResize(plain) || noRestartResize(restart) {
		t.Errorf("noRestartResize: plain %v (want true), restart %v (want false)", noRestartResize(plain), noRestartResize(restart))
	}
}
