package updater

import (
	"context"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	"k8s.io/klog/v2"

	"github.com/kscale/kscale/internal/vpa/boost"
	"github.com/kscale/kscale/internal/vpa/recommendation"
)

// unboost resizes in place, within each group's budget, the pods whose
// startup boost is over (see boost.Expired): boosted containers go to the
// VPA's resources (their original ones while the VPA has none, or in mode
// Off) and lose their boost annotation. Pending pods and pods that are
// resizing wait. Only a cancelled context is returned as an error.
func (u *Updater) unboost(ctx context.Context, w *vpaWork, budgets map[types.UID]*Budget) error {
	if !u.boosting(w.vpa) {
		return nil
	}
	now := u.clock.Now()
	for _, uid := range slices.Sorted(maps.Keys(w.groups)) {
		budget := budgets[uid]
		if budget == nil {
			continue
		}
		for _, pod := range w.groups[uid].pods {
			expired := boost.Expired(pod, w.vpa, now)
			if len(expired) == 0 || pod.Status.Phase == corev1.PodPending || resizing(pod) || !budget.CanDisrupt(false) {
				continue
			}
			if err := u.resizeLimiter.Wait(ctx); err != nil {
				return err
			}
			if u.unboostPod(ctx, w, pod, expired) {
				budget.Disrupted(false)
			}
		}
	}
	return nil
}

// unboostPod resizes one pod back and reports whether it was resized.
func (u *Updater) unboostPod(ctx context.Context, w *vpaWork, pod *corev1.Pod, expired []string) bool {
	log := klog.FromContext(ctx).WithValues("vpa", klog.KObj(w.vpa), "pod", klog.KObj(pod))
	var processed recommendation.Result
	if UpdateMode(w.vpa) != vpav1.UpdateModeOff {
		processed = recommendation.Process(pod, w.vpa.Status.Recommendation, w.vpa.Spec.ResourcePolicy, w.limits)
	}
	target, err := boost.Unboost(pod, processed, expired)
	if err == nil {
		err = u.resize(ctx, pod, target, expired)
	}
	if err != nil {
		u.metrics.inPlace.WithLabelValues("UnboostError").Inc()
		log.Info("Undoing the startup boost failed", "err", err)
		return false
	}
	u.metrics.inPlace.WithLabelValues("Unboosted").Inc()
	u.recorder.Eventf(pod, w.vpa, corev1.EventTypeNormal, "InPlaceResizedByVPA", "Resize",
		"Pod was resized in place by the VPA updater: its CPU startup boost is over.")
	log.V(2).Info("Undid the startup boost", "containers", expired)
	return true
}
