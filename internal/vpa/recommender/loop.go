package recommender

import (
	"context"
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	"k8s.io/klog/v2"

	"github.com/kscale/kscale/internal/vpa/estimator"
	"github.com/kscale/kscale/internal/vpa/input"
	"github.com/kscale/kscale/internal/vpa/model"
	"github.com/kscale/kscale/internal/vpa/target"
)

// vpaEntry is one served VPA with what this loop learned about it.
type vpaEntry struct {
	vpa          *vpav1.VerticalPodAutoscaler
	id           model.VPAID
	selector     labels.Selector
	configReason string
	configMsg    string
}

// RunOnce runs one loop: VPAs, pods, usage and OOMs into the model, then
// status updates, checkpoints and garbage collection.
func (r *Recommender) RunOnce(ctx context.Context) error {
	now := r.deps.Clock.Now()
	var errs []error
	var resolveErr error
	vpas, err := timed(r, "load_vpas", func() ([]*vpaEntry, error) {
		vs, rerr, err := r.loadVPAs(ctx)
		resolveErr = rerr
		return vs, err
	})
	if err != nil {
		return err
	}
	errs = append(errs, resolveErr)
	seen, err := timed(r, "load_pods", func() (map[model.PodID]bool, error) { return r.loadPods(vpas, now) })
	if err != nil {
		return err
	}
	metricsErr := r.step("load_metrics", func() error { return r.loadMetrics(ctx) })
	r.deletePodsExcept(seen)
	errs = append(errs, r.step("update_vpas", func() error { return r.updateVPAs(ctx, vpas, metricsErr) }))
	errs = append(errs, r.step("checkpoints", func() error { return r.maintainCheckpoints(ctx, vpas, now) }))
	if r.lastAggregateGC.IsZero() || now.Sub(r.lastAggregateGC) >= r.cfg.AggregateGCInterval {
		gcStart := r.deps.Clock.Now()
		r.cluster.GarbageCollect(now)
		r.lastAggregateGC = now
		r.metrics.upstream.step("GarbageCollect", r.deps.Clock.Since(gcStart))
	}
	r.metrics.aggregates.Set(float64(r.cluster.NumAggregates()))
	r.metrics.upstream.aggregates.Set(float64(r.cluster.NumAggregates()))
	r.metrics.upstream.step("total", r.deps.Clock.Since(now))
	r.mu.Lock()
	r.lastLoop = now
	r.mu.Unlock()
	r.metrics.lastLoop.Set(float64(now.Unix()))
	if metricsErr != nil {
		errs = append(errs, metricsErr)
	}
	return errors.Join(errs...)
}

// step runs f, records its duration and counts a failure.
func (r *Recommender) step(name string, f func() error) error {
	_, err := timed(r, name, func() (struct{}, error) { return struct{}{}, f() })
	return err
}

// timed runs f, records its duration and counts a failure.
func timed[T any](r *Recommender, name string, f func() (T, error)) (T, error) {
	start := r.deps.Clock.Now()
	v, err := f()
	r.metrics.loopDuration.WithLabelValues(name).Observe(r.deps.Clock.Since(start).Seconds())
	r.metrics.upstream.step(name, r.deps.Clock.Since(start))
	if err != nil {
		r.metrics.errors.WithLabelValues(name).Inc()
	}
	return v, err
}

// serves reports whether this recommender serves the VPA.
func (r *Recommender) serves(v *vpav1.VerticalPodAutoscaler) bool {
	if len(v.Spec.Recommenders) == 0 {
		return r.cfg.Name == DefaultRecommenderName
	}
	for _, s := range v.Spec.Recommenders {
		if s != nil && s.Name == r.cfg.Name {
			return true
		}
	}
	return false
}

// loadVPAs lists the served VPAs, resolves their targets, validates their
// policies and mirrors them into the model. A VPA whose target could not
// be read (an API error, not a configuration problem) is skipped for this
// loop and its error joined into resolveErr.
func (r *Recommender) loadVPAs(ctx context.Context) (vpas []*vpaEntry, resolveErr, err error) {
	list, err := r.deps.VPAs.VerticalPodAutoscalers(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, nil, fmt.Errorf("listing VPAs: %w", err)
	}
	var resolveErrs []error
	out := make([]*vpaEntry, 0, len(list.Items))
	keep := make(map[model.VPAID]bool, len(list.Items))
	for i := range list.Items {
		v := &list.Items[i]
		if !r.serves(v) {
			continue
		}
		id := model.VPAID{Namespace: v.Namespace, Name: v.Name}
		keep[id] = true
		e, err := r.resolve(ctx, v)
		if err != nil {
			r.metrics.errors.WithLabelValues("resolve_target").Inc()
			resolveErrs = append(resolveErrs, err)
			continue
		}
		r.cluster.SetVPA(e.id, e.selector, e.selector != nil)
		r.cluster.SetVPAOverrides(e.id, r.overrides(ctx, v))
		out = append(out, e)
	}
	for _, id := range r.cluster.VPAIDs() {
		if !keep[id] {
			r.cluster.DeleteVPA(id)
		}
	}
	r.recs.retain(keep)
	return out, errors.Join(resolveErrs...), nil
}

// overrides returns the VPA's per-container aggregation settings when gate
// PerVPAConfig is on; with the gate off they are ignored, as upstream does.
func (r *Recommender) overrides(ctx context.Context, v *vpav1.VerticalPodAutoscaler) map[string]model.Overrides {
	o := Overrides(v.Spec.ResourcePolicy)
	if o != nil && !r.cfg.Features.PerVPAConfig {
		klog.FromContext(ctx).V(4).Info("Ignoring the VPA's per-VPA settings: feature gate PerVPAConfig is off", "vpa", klog.KObj(v))
		return nil
	}
	return o
}

// resolve resolves one VPA's target and checks its policy. Configuration
// problems become a ConfigUnsupported reason; other errors are returned.
func (r *Recommender) resolve(ctx context.Context, v *vpav1.VerticalPodAutoscaler) (*vpaEntry, error) {
	e := &vpaEntry{vpa: v, id: model.VPAID{Namespace: v.Namespace, Name: v.Name}}
	t, err := r.deps.Targets.Resolve(ctx, v)
	var te *target.Error
	switch {
	case errors.As(err, &te):
		e.configReason, e.configMsg = string(te.Reason), te.Error()
		return e, nil
	case err != nil:
		return nil, fmt.Errorf("resolving the target of VPA %s/%s: %w", v.Namespace, v.Name, err)
	}
	e.selector = t.Selector
	if err := estimator.ValidatePolicy(v.Spec.ResourcePolicy); err != nil {
		e.configReason, e.configMsg = ReasonInvalidResourcePolicy, err.Error()
	}
	return e, nil
}

// loadPods mirrors the listed pods into the model and returns them.
func (r *Recommender) loadPods(vpas []*vpaEntry, now time.Time) (map[model.PodID]bool, error) {
	pods, err := r.deps.Pods.List()
	if err != nil {
		return nil, fmt.Errorf("listing pods: %w", err)
	}
	selectors := map[string][]labels.Selector{}
	for _, e := range vpas {
		if e.selector != nil {
			selectors[e.id.Namespace] = append(selectors[e.id.Namespace], e.selector)
		}
	}
	seen := make(map[model.PodID]bool, len(pods))
	for _, p := range pods {
		info, ok := input.PodInfoFromPod(p)
		if !ok || (r.cfg.MemorySaver && !anyMatches(selectors[p.Namespace], p.Labels)) {
			continue
		}
		r.cluster.SetPod(info.ID, info.Labels, info.Containers, info.Terminal, now)
		seen[info.ID] = true
	}
	return seen, nil
}

// anyMatches reports whether any selector matches the labels.
func anyMatches(sels []labels.Selector, l map[string]string) bool {
	for _, s := range sels {
		if s.Matches(labels.Set(l)) {
			return true
		}
	}
	return false
}

// loadMetrics feeds current usage and the OOMs since the last loop.
func (r *Recommender) loadMetrics(ctx context.Context) error {
	usage, err := r.deps.Usage.List(ctx)
	r.metrics.upstream.metricsServerResponse(err)
	if err == nil {
		r.feedUsage(usage)
	}
	log := klog.FromContext(ctx)
	for _, o := range r.deps.OOMs.Drain() {
		if cs := r.cluster.Container(o.Pod, o.Container); cs != nil && cs.RecordOOM(o.Time, o.MemoryBytes) {
			log.V(1).Info("Recorded OOM kill", "pod", klog.KRef(o.Pod.Namespace, o.Pod.Name), "container", o.Container)
		}
	}
	return err
}

// feedUsage adds samples to the containers the model knows.
func (r *Recommender) feedUsage(usage []input.ContainerUsage) {
	for i := range usage {
		u := &usage[i]
		cs := r.cluster.Container(u.Pod, u.Container)
		if cs == nil {
			continue
		}
		if u.CPUCores >= 0 {
			cs.AddCPU(u.Time, u.CPUCores)
		}
		if u.MemoryBytes >= 0 {
			cs.AddMemory(u.Time, u.MemoryBytes)
		}
	}
}

// deletePodsExcept forgets pods not seen in this loop.
func (r *Recommender) deletePodsExcept(seen map[model.PodID]bool) {
	for _, id := range r.cluster.PodIDs() {
		if !seen[id] {
			r.cluster.DeletePod(id)
		}
	}
}
