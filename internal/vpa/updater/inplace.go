package updater

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kscale/kscale/internal/vpa/recommendation"
)

// InPlaceUpdatedAnnotation marks pods the updater resized in place.
const InPlaceUpdatedAnnotation = "vpaInPlaceUpdated"

// How long a resize may stay Deferred or InProgress before the updater
// falls back to eviction.
const (
	DeferredResizeTimeout   = 5 * time.Minute
	InProgressResizeTimeout = time.Hour
)

// ResizeAction is what the updater does with a pod of an InPlaceOrRecreate VPA.
type ResizeAction int

const (
	// ResizeDefer leaves the pod alone this loop.
	ResizeDefer ResizeAction = iota
	// ResizeApply resizes the pod through the pods/resize subresource.
	ResizeApply
	// ResizeEvict falls back to eviction.
	ResizeEvict
)

// DecideResize returns the action for a pod whose resize the updater first
// saw in progress at firstSeen (zero when it is not resizing). It is pure.
func DecideResize(pod *corev1.Pod, firstSeen, now time.Time) ResizeAction {
	if pod.Status.Phase == corev1.PodPending {
		return ResizeDefer
	}
	pending := condition(pod, corev1.PodResizePending)
	inProgress := condition(pod, corev1.PodResizeInProgress)
	switch {
	case pending != nil && pending.Reason == corev1.PodReasonInfeasible:
		return ResizeEvict
	case inProgress != nil && inProgress.Reason == corev1.PodReasonError:
		return ResizeEvict
	case pending != nil:
		return timeout(firstSeen, now, DeferredResizeTimeout)
	case inProgress != nil:
		return timeout(firstSeen, now, InProgressResizeTimeout)
	}
	return ResizeApply
}

func timeout(firstSeen, now time.Time, limit time.Duration) ResizeAction {
	if now.Sub(firstSeen) > limit {
		return ResizeEvict
	}
	return ResizeDefer
}

func condition(pod *corev1.Pod, t corev1.PodConditionType) *corev1.PodCondition {
	for i := range pod.Status.Conditions {
		if c := &pod.Status.Conditions[i]; c.Type == t && c.Status == corev1.ConditionTrue {
			return c
		}
	}
	return nil
}

// resizing reports whether a resize of the pod is pending or in progress.
func resizing(pod *corev1.Pod) bool {
	return condition(pod, corev1.PodResizePending) != nil || condition(pod, corev1.PodResizeInProgress) != nil
}

// noRestartResize reports whether resizing CPU and memory restarts no
// container (every resizePolicy is NotRequired, the default).
func noRestartResize(pod *corev1.Pod) bool {
	for _, c := range pod.Spec.Containers {
		for _, p := range c.ResizePolicy {
			if (p.ResourceName == corev1.ResourceCPU || p.ResourceName == corev1.ResourceMemory) && p.RestartPolicy != corev1.NotRequired {
				return false
			}
		}
	}
	return true
}

// inPlaceOrEvict resizes the pod in place, or evicts it when resizing failed,
// stalled or is impossible. It reports whether the pod was disrupted.
func (u *Updater) inPlaceOrEvict(ctx context.Context, vpa *vpav1.VerticalPodAutoscaler, c Candidate) bool {
	pod := c.Pod
	now := u.clock.Now()
	first, seen := u.resizing[pod.UID]
	switch {
	case resizing(pod) && !seen:
		first = now
		u.resizing[pod.UID] = now
	case !resizing(pod):
		delete(u.resizing, pod.UID)
	}
	switch DecideResize(pod, first, now) {
	case ResizeDefer:
		return false
	case ResizeEvict:
		delete(u.resizing, pod.UID)
		return u.evict(ctx, vpa, pod, "ResizeFallback")
	}
	if err := u.resize(ctx, pod, c.Processed); err != nil {
		u.metrics.inPlace.WithLabelValues("Error").Inc()
		u.metrics.upstream.failedInPlaceUpdate(vpa, reasonInPlaceUpdateError)
		klog.FromContext(ctx).Info("In-place resize failed; evicting instead", "pod", klog.KObj(pod), "err", err)
		return u.evict(ctx, vpa, pod, "ResizeFallback")
	}
	u.metrics.inPlace.WithLabelValues("Applied").Inc()
	u.metrics.upstream.inPlaceUpdatedPod(vpa)
	u.recorder.Eventf(pod, vpa, corev1.EventTypeNormal, "InPlaceResizedByVPA", "Resize",
		"Pod was resized in place by the VPA updater to apply the resource recommendation.")
	return true
}

// resize patches the pods/resize subresource with the processed resources
// and then marks the pod with InPlaceUpdatedAnnotation.
func (u *Updater) resize(ctx context.Context, pod *corev1.Pod, processed recommendation.Result) error {
	var ops []recommendation.PatchOp
	for _, c := range processed.Containers {
		res := pod.Spec.Containers[c.Index].Resources
		requests, _ := recommendation.ResourcePatch(c.Index, "requests", res.Requests, c.Requests)
		limits, _ := recommendation.ResourcePatch(c.Index, "limits", res.Limits, c.Limits)
		ops = append(append(ops, requests...), limits...)
	}
	raw, err := json.Marshal(ops)
	if err != nil {
		return fmt.Errorf("encoding resize patch: %w", err)
	}
	if err := u.client.SubResource("resize").Patch(ctx, pod, client.RawPatch(types.JSONPatchType, raw)); err != nil {
		return fmt.Errorf("resizing pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	mark := fmt.Appendf(nil, `{"metadata":{"annotations":{%q:"true"}}}`, InPlaceUpdatedAnnotation)
	if err := u.client.Patch(ctx, pod, client.RawPatch(types.MergePatchType, mark)); err != nil {
		return fmt.Errorf("annotating pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	return nil
}
