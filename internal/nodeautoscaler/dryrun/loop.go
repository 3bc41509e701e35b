package dryrun

import (
	"context"
	"time"

	"k8s.io/klog/v2"

	"github.com/kscale/kscale/internal/nodeautoscaler"
)

// LoopView is what one dry-run loop saw and found.
type LoopView struct {
	// Targets are the target sizes per group as the cloud reported them.
	Targets map[string]int
	// Unneeded are the nodes per group scale-down found unneeded.
	Unneeded map[string]int
}

// LoopObserver takes what each dry-run loop saw.
type LoopObserver interface {
	// AfterLoop is called after the loop that started at now.
	AfterLoop(ctx context.Context, now time.Time, view LoopView) error
}

// Loop is the autoscaler with each loop's unneeded nodes logged and
// exported per group, and the target sizes handed to an observer. It
// embeds the autoscaler, so the runner sees every optional interface the
// autoscaler implements.
type Loop struct {
	*nodeautoscaler.Autoscaler
	metrics  *Metrics
	provider *Provider
	observer LoopObserver
}

// NewLoop wraps a, whose provider is provider; observer may be nil.
func NewLoop(a *nodeautoscaler.Autoscaler, metrics *Metrics, provider *Provider, observer LoopObserver) *Loop {
	return &Loop{Autoscaler: a, metrics: metrics, provider: provider, observer: observer}
}

// RunOnce runs one loop, then reports the unneeded nodes per group and
// hands them and the target sizes to the observer.
func (l *Loop) RunOnce(ctx context.Context, now time.Time) error {
	err := l.Autoscaler.RunOnce(ctx, now)
	unneeded := l.ScaleDownCandidates()
	l.metrics.setUnneeded(unneeded)
	for group, n := range unneeded {
		klog.FromContext(ctx).V(1).Info("Dry run: unneeded nodes", "nodeGroup", group, "count", n)
	}
	if l.observer == nil || err != nil {
		return err
	}
	return l.observer.AfterLoop(ctx, now, LoopView{Targets: l.provider.Targets(), Unneeded: unneeded})
}
