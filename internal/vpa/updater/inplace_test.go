package updater

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"

	"github.com/kscale/kscale/internal/fixture"
)

func withCondition(t corev1.PodConditionType, reason string) fixture.PodOption {
	return func(p *corev1.Pod) {
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: t, Status: corev1.ConditionTrue, Reason: reason})
	}
}

func running(p *corev1.Pod) { p.Status.Phase = corev1.PodRunning }

func withConditionMessage(t corev1.PodConditionType, reason, message string) fixture.PodOption {
	return func(p *corev1.Pod) {
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: t, Status: corev1.ConditionTrue, Reason: reason, Message: message})
	}
}

func targets(cpu, memory string) *vpav1.RecommendedPodResources {
	return &vpav1.RecommendedPodResources{ContainerRecommendations: []vpav1.RecommendedContainerResources{{
		ContainerName: "app",
		Target:        corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)},
	}}}
}

func TestDecideResize(t *testing.T) {
	rec := targets("500m", "1Gi")
	pendingPod := func(p *corev1.Pod) { p.Status.Phase = corev1.PodPending }
	infeasible := withCondition(corev1.PodResizePending, corev1.PodReasonInfeasible)
	deferred := withCondition(corev1.PodResizePending, corev1.PodReasonDeferred)
	inProgress := withCondition(corev1.PodResizeInProgress, "")
	kubeletError := withConditionMessage(corev1.PodResizeInProgress, corev1.PodReasonError, "OOM")
	tests := []struct {
		name           string
		mode           vpav1.UpdateMode
		opts           []fixture.PodOption
		noRec          bool
		lastInfeasible *vpav1.RecommendedPodResources
		resized        time.Duration // how long ago the updater first saw the resize
		want           ResizeAction
	}{
		{name: "pending pod", opts: []fixture.PodOption{pendingPod}, want: ResizeDefer},
		{name: "no recommendation", opts: []fixture.PodOption{running}, noRec: true, want: ResizeDefer},
		{name: "running, no resize", opts: []fixture.PodOption{running}, want: ResizeApply},
		{name: "infeasible", opts: []fixture.PodOption{running, infeasible}, want: ResizeEvict},
		{name: "unknown pending reason", opts: []fixture.PodOption{running, withCondition(corev1.PodResizePending, "Other")}, want: ResizeEvict},
		{name: "error", opts: []fixture.PodOption{running, kubeletError}, want: ResizeEvict},
		{name: "in progress with a message", opts: []fixture.PodOption{running, withConditionMessage(corev1.PodResizeInProgress, "", "stuck")}, want: ResizeEvict},
		{name: "deferred 4m", opts: []fixture.PodOption{running, deferred}, resized: 4 * time.Minute, want: ResizeDefer},
		{name: "deferred 6m", opts: []fixture.PodOption{running, deferred}, resized: 6 * time.Minute, want: ResizeEvict},
		{name: "in progress 59m", opts: []fixture.PodOption{running, inProgress}, resized: 59 * time.Minute, want: ResizeDefer},
		{name: "in progress 61m", opts: []fixture.PodOption{running, inProgress}, resized: 61 * time.Minute, want: ResizeEvict},

		{name: "InPlace: pending pod", mode: vpav1.UpdateModeInPlace, opts: []fixture.PodOption{pendingPod}, want: ResizeDefer},
		{name: "InPlace: no recommendation", mode: vpav1.UpdateModeInPlace, opts: []fixture.PodOption{running}, noRec: true, want: ResizeDefer},
		{name: "InPlace: running, no resize", mode: vpav1.UpdateModeInPlace, opts: []fixture.PodOption{running}, want: ResizeApply},
		{name: "InPlace: infeasible is retried and remembered", mode: vpav1.UpdateModeInPlace, opts: []fixture.PodOption{running, infeasible}, want: ResizeRetryInfeasible},
		{name: "InPlace: error is patched again", mode: vpav1.UpdateModeInPlace, opts: []fixture.PodOption{running, kubeletError}, want: ResizeApply},
		{name: "InPlace: deferred for hours: never evicted, patched with the newest target", mode: vpav1.UpdateModeInPlace, opts: []fixture.PodOption{running, deferred}, resized: 10 * time.Hour, want: ResizeApply},
		{name: "InPlace: in progress for hours: never evicted, patched with the newest target", mode: vpav1.UpdateModeInPlace, opts: []fixture.PodOption{running, inProgress}, resized: 10 * time.Hour, want: ResizeApply},
		{name: "InPlace: same target as the infeasible one", mode: vpav1.UpdateModeInPlace, opts: []fixture.PodOption{running, infeasible}, lastInfeasible: targets("500m", "1Gi"), want: ResizeSkipInfeasible},
		{name: "InPlace: higher target than the infeasible one", mode: vpav1.UpdateModeInPlace, opts: []fixture.PodOption{running}, lastInfeasible: targets("400m", "1Gi"), want: ResizeSkipInfeasible},
		{name: "InPlace: lower memory than the infeasible one", mode: vpav1.UpdateModeInPlace, opts: []fixture.PodOption{running, infeasible}, lastInfeasible: targets("500m", "2Gi"), want: ResizeRetryInfeasible},
		{name: "InPlace: lower cpu, resize settled", mode: vpav1.UpdateModeInPlace, opts: []fixture.PodOption{running}, lastInfeasible: targets("600m", "1Gi"), want: ResizeApply},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mode := tc.mode
			if mode == "" {
				mode = vpav1.UpdateModeInPlaceOrRecreate
			}
			in := ResizeInput{Mode: mode, Pod: fixture.Pod("p", tc.opts...), Recommendation: rec,
				LastInfeasible: tc.lastInfeasible, FirstSeen: now.Add(-tc.resized), Now: now}
			if tc.noRec {
				in.Recommendation = nil
			}
			if got := DecideResize(in); got != tc.want {
				t.Errorf("DecideResize = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestHasLowerTarget(t *testing.T) {
	other := &vpav1.RecommendedPodResources{ContainerRecommendations: []vpav1.RecommendedContainerResources{{
		ContainerName: "sidecar", Target: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1m")},
	}}}
	tests := []struct {
		name       string
		last, next *vpav1.RecommendedPodResources
		want       bool
	}{
		{name: "nil last", next: targets("1", "1Gi")},
		{name: "nil next", last: targets("1", "1Gi")},
		{name: "equal", last: targets("1", "1Gi"), next: targets("1", "1Gi")},
		{name: "both higher", last: targets("1", "1Gi"), next: targets("2", "2Gi")},
		{name: "cpu lower", last: targets("1", "1Gi"), next: targets("999m", "2Gi"), want: true},
		{name: "memory lower", last: targets("1", "1Gi"), next: targets("2", "1023Mi"), want: true},
		{name: "other container", last: targets("1", "1Gi"), next: other},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := HasLowerTarget(tc.last, tc.next); got != tc.want {
				t.Errorf("HasLowerTarget = %v, want %v", got, tc.want)
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
