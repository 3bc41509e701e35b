package updater

import (
	"context"
	"encoding/json"
	"errors"
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

// How long a resize may stay Deferred or InProgress before an
// InPlaceOrRecreate VPA falls back to eviction (upstream's timeouts).
const (
	DeferredResizeTimeout   = 5 * time.Minute
	InProgressResizeTimeout = time.Hour
)

// ResizeAction is what the updater does with a pod of an InPlaceOrRecreate
// or InPlace VPA.
type ResizeAction int

const (
	// ResizeDefer leaves the pod alone this loop.
	ResizeDefer ResizeAction = iota
	// ResizeApply resizes the pod through the pods/resize subresource.
	ResizeApply
	// ResizeEvict falls back to eviction (InPlaceOrRecreate only).
	ResizeEvict
	// ResizeRetryInfeasible resizes again a pod whose resize the node found
	// infeasible (InPlace only), remembering the recommendation so the pod
	// is tried again only when some target goes down.
	ResizeRetryInfeasible
	// ResizeSkipInfeasible leaves alone a pod whose last resize was
	// infeasible while no target went down since (InPlace only).
	ResizeSkipInfeasible
)

// ResizeInput is what DecideResize knows about one pod.
type ResizeInput struct {
	// Mode is the VPA's update mode, InPlaceOrRecreate or InPlace.
	Mode vpav1.UpdateMode
	// Pod is the pod, with its resize conditions.
	Pod *corev1.Pod
	// Recommendation is the VPA's current recommendation.
	Recommendation *vpav1.RecommendedPodResources
	// LastInfeasible is the recommendation of the pod's last infeasible
	// resize (mode InPlace), nil when there was none.
	LastInfeasible *vpav1.RecommendedPodResources
	// FirstSeen is when the updater first saw the pod's current resize
	// pending or in progress.
	FirstSeen time.Time
	// Now is the current time.
	Now time.Time
}

// DecideResize returns the action for a pod, following upstream's rules
// (pkg/updater/restriction/pods_inplace_restriction.go): a pending pod, or
// a VPA without a recommendation, waits. InPlaceOrRecreate evicts a pod
// whose resize is infeasible, failed, or stayed deferred over 5 minutes or
// in progress over an hour (and waits before that); InPlace never evicts:
// it patches the newest recommendation over a deferred, ongoing or failed
// resize, and retries an infeasible one only when a target went down. It
// is pure.
func DecideResize(in ResizeInput) ResizeAction {
	if in.Pod.Status.Phase == corev1.PodPending || in.Recommendation == nil {
		return ResizeDefer
	}
	if in.Mode == vpav1.UpdateModeInPlace {
		return decideInPlace(in)
	}
	return decideInPlaceOrRecreate(in)
}

// decideInPlace never evicts. A pod reaching it is still worth updating,
// so its spec differs from the recommendation: as upstream's loop does, a
// resize the kubelet deferred, is applying or failed is patched again with
// the newest recommendation; an infeasible one only when a target went down.
func decideInPlace(in ResizeInput) ResizeAction {
	if in.LastInfeasible != nil && !HasLowerTarget(in.LastInfeasible, in.Recommendation) {
		return ResizeSkipInfeasible
	}
	if p := condition(in.Pod, corev1.PodResizePending); p != nil && p.Reason == corev1.PodReasonInfeasible {
		return ResizeRetryInfeasible
	}
	return ResizeApply
}

func decideInPlaceOrRecreate(in ResizeInput) ResizeAction {
	pending := condition(in.Pod, corev1.PodResizePending)
	inProgress := condition(in.Pod, corev1.PodResizeInProgress)
	switch {
	case pending != nil && pending.Reason == corev1.PodReasonDeferred:
		return timeout(in.FirstSeen, in.Now, DeferredResizeTimeout)
	case pending != nil:
		// Infeasible, or a reason the updater does not know.
		return ResizeEvict
	case inProgress != nil && inProgress.Reason == "" && inProgress.Message == "":
		return timeout(in.FirstSeen, in.Now, InProgressResizeTimeout)
	case inProgress != nil:
		// Error, or a state the updater does not know.
		return ResizeEvict
	}
	return ResizeApply
}

// HasLowerTarget reports whether some container's target in next is lower
// than the same container's target for the same resource in last.
func HasLowerTarget(last, next *vpav1.RecommendedPodResources) bool {
	if last == nil || next == nil {
		return false
	}
	for _, l := range last.ContainerRecommendations {
		for _, n := range next.ContainerRecommendations {
			if l.ContainerName != n.ContainerName {
				continue
			}
			for name, lv := range l.Target {
				if nv, ok := n.Target[name]; ok && nv.Cmp(lv) < 0 {
					return true
				}
			}
		}
	}
	return false
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

// resizeSeen returns when the updater first saw the pod's current resize
// pending or in progress (now if this is the first time), and forgets it
// once the pod no longer resizes.
func (u *Updater) resizeSeen(pod *corev1.Pod, now time.Time) time.Time {
	if !resizing(pod) {
		delete(u.resizing, pod.UID)
		return now
	}
	first, ok := u.resizing[pod.UID]
	if !ok {
		first = now
		u.resizing[pod.UID] = now
	}
	return first
}

// updateInPlace resizes the pod in place within its group's budget, or,
// for InPlaceOrRecreate, evicts it when resizing failed, stalled or is
// impossible. Only a cancelled context is returned as an error.
func (u *Updater) updateInPlace(ctx context.Context, vpa *vpav1.VerticalPodAutoscaler, c Candidate, budget *Budget) error {
	pod, mode, now := c.Pod, UpdateMode(vpa), u.clock.Now()
	log := klog.FromContext(ctx).WithValues("vpa", klog.KObj(vpa), "pod", klog.KObj(pod))
	action := DecideResize(ResizeInput{Mode: mode, Pod: pod, Recommendation: vpa.Status.Recommendation,
		LastInfeasible: u.infeasible[pod.UID], FirstSeen: u.resizeSeen(pod, now), Now: now})
	switch action {
	case ResizeDefer, ResizeSkipInfeasible:
		log.V(2).Info("In-place update deferred", "skippedInfeasible", action == ResizeSkipInfeasible)
		return nil
	case ResizeEvict:
		delete(u.resizing, pod.UID)
		return u.evictWithin(ctx, vpa, pod, budget, "ResizeFallback")
	case ResizeRetryInfeasible:
		u.infeasible[pod.UID] = vpa.Status.Recommendation
	}
	bypass := u.cfg.InPlaceSkipDisruptionBudget && noRestartResize(pod)
	if !bypass && !budget.CanDisrupt(false) {
		log.V(1).Info("Disruption budget exhausted; in-place update deferred")
		return nil
	}
	if err := u.resizeLimiter.Wait(ctx); err != nil {
		return err
	}
	if err := u.resize(ctx, pod, c.Processed, nil); err != nil {
		u.metrics.inPlace.WithLabelValues("Error").Inc()
		u.metrics.upstream.failedInPlaceUpdate(vpa, reasonInPlaceUpdateError)
		if mode == vpav1.UpdateModeInPlace {
			log.Info("In-place resize failed; mode InPlace never evicts", "err", err)
			return nil
		}
		log.Info("In-place resize failed; evicting instead", "err", err)
		return u.evictWithin(ctx, vpa, pod, budget, "ResizeFallback")
	}
	budget.Disrupted(false)
	u.metrics.inPlace.WithLabelValues("Applied").Inc()
	u.metrics.upstream.inPlaceUpdatedPod(vpa)
	u.recorder.Eventf(pod, vpa, corev1.EventTypeNormal, "InPlaceResizedByVPA", "Resize",
		"Pod was resized in place by the VPA updater to apply the resource recommendation.")
	return nil
}

// errNoResize is returned when the processed resources equal the pod's.
var errNoResize = errors.New("no resource changes to apply")

// resize patches the pods/resize subresource with the processed resources
// and then marks the pod with InPlaceUpdatedAnnotation and removes the
// annotations named by drop (expired startup boosts). As upstream, a
// failed mark is only logged: the resize itself was accepted. With nothing
// to resize, only the annotations are patched when drop is not empty.
func (u *Updater) resize(ctx context.Context, pod *corev1.Pod, processed recommendation.Result, drop []string) error {
	var ops []recommendation.PatchOp
	for _, c := range processed.Containers {
		res := pod.Spec.Containers[c.Index].Resources
		requests, _ := recommendation.ResourcePatch(c.Index, "requests", res.Requests, c.Requests)
		limits, _ := recommendation.ResourcePatch(c.Index, "limits", res.Limits, c.Limits)
		ops = append(append(ops, requests...), limits...)
	}
	if len(ops) == 0 && len(drop) == 0 {
		return fmt.Errorf("resizing pod %s/%s: %w", pod.Namespace, pod.Name, errNoResize)
	}
	if len(ops) > 0 {
		raw, err := json.Marshal(ops)
		if err != nil {
			return fmt.Errorf("encoding resize patch: %w", err)
		}
		if err := u.client.SubResource("resize").Patch(ctx, pod, client.RawPatch(types.JSONPatchType, raw)); err != nil {
			return fmt.Errorf("resizing pod %s/%s: %w", pod.Namespace, pod.Name, err)
		}
	}
	annotations := map[string]any{InPlaceUpdatedAnnotation: "true"}
	for _, key := range drop {
		annotations[key] = nil
	}
	mark, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": annotations}})
	if err != nil {
		return fmt.Errorf("encoding annotation patch: %w", err)
	}
	if err := u.client.Patch(ctx, pod, client.RawPatch(types.MergePatchType, mark)); err != nil {
		if len(ops) == 0 {
			return fmt.Errorf("annotating pod %s/%s: %w", pod.Namespace, pod.Name, err)
		}
		klog.FromContext(ctx).Info("Marking the resized pod failed", "pod", klog.KObj(pod), "err", err)
	}
	return nil
}
