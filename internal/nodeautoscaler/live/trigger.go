package live

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	"github.com/kscale/kscale/internal/operator"
)

// maxUnschedulableAge is how recently a pod must have been marked
// unschedulable for its add or update to trigger a loop (upstream's
// maxPodChangeAge).
const maxUnschedulableAge = 10 * time.Second

// ScalingTimes reports when the loop last scaled up and last started
// deleting nodes; *nodeautoscaler.Autoscaler implements it. With frequent
// loops the runner starts the next loop at once after a loop that did
// either.
type ScalingTimes interface {
	// LastScaleUpTime is the loop time of the last successful scale-up.
	LastScaleUpTime() time.Time
	// LastScaleDownDeleteTime is the loop time of the last loop that
	// started deleting nodes.
	LastScaleDownDeleteTime() time.Time
}

// NewUnschedulablePodTrigger registers a handler on the factory's pod
// informer and returns a trigger raised (without blocking the informer)
// whenever a pod is added or updated that kube-scheduler marked
// unschedulable within the last ten seconds, as upstream's unschedulable
// pod observer does. Register it before the factory starts.
func NewUnschedulablePodTrigger(factory informers.SharedInformerFactory, clk clock.PassiveClock) (*operator.Trigger, error) {
	trigger := operator.NewTrigger()
	signal := func(obj any) {
		now := clk.Now()
		if p, ok := obj.(*corev1.Pod); ok && recentlyUnschedulable(p, now) {
			trigger.Raise(now)
		}
	}
	_, err := factory.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    signal,
		UpdateFunc: func(_, obj any) { signal(obj) },
	})
	if err != nil {
		return nil, fmt.Errorf("watching for unschedulable pods: %w", err)
	}
	return trigger, nil
}

// recentlyUnschedulable reports whether p is unbound, not finished, and
// became PodScheduled=False/Unschedulable within maxUnschedulableAge of now.
func recentlyUnschedulable(p *corev1.Pod, now time.Time) bool {
	if p.Spec.NodeName != "" || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled {
			return c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable &&
				!c.LastTransitionTime.Add(maxUnschedulableAge).Before(now)
		}
	}
	return false
}
