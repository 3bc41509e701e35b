package updater

import (
	"context"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	"k8s.io/klog/v2"

	"github.com/kscale/kscale/internal/vpa/boost"
	"github.com/kscale/kscale/internal/vpa/recommendation"
)

// planned is a candidate with the controller group it belongs to.
type planned struct {
	Candidate
	owner types.UID
}

// updateVPA evicts (or resizes) the worthiest pods of one VPA, within each
// controller's budget and the global rate limit. Refused evictions (for
// example by a PodDisruptionBudget) are logged and counted; only a
// cancelled context stops the loop. It returns the number of candidates.
func (u *Updater) updateVPA(ctx context.Context, w *vpaWork) (int, error) {
	budgets, plan := u.plan(ctx, w)
	u.metrics.upstream.planned(w.vpa, updatable(plan, budgets))
	if err := u.unboost(ctx, w, budgets); err != nil {
		return len(plan), err
	}
	inPlace := resizesInPlace(UpdateMode(w.vpa))
	for _, c := range plan {
		var err error
		if inPlace {
			err = u.updateInPlace(ctx, w.vpa, c.Candidate, budgets[c.owner])
		} else {
			err = u.evictWithin(ctx, w.vpa, c.Pod, budgets[c.owner], c.Priority.Reason())
		}
		if err != nil {
			return len(plan), err
		}
	}
	return len(plan), nil
}

// evictWithin evicts the pod when its group's budget allows, after the
// eviction rate limiter. Only a cancelled context is returned as an error.
func (u *Updater) evictWithin(ctx context.Context, vpa *vpav1.VerticalPodAutoscaler, pod *corev1.Pod, budget *Budget, reason string) error {
	pending := pod.Status.Phase == corev1.PodPending
	if !budget.CanEvict(pending) {
		klog.FromContext(ctx).V(1).Info("Eviction budget exhausted", "vpa", klog.KObj(vpa), "pod", klog.KObj(pod))
		return nil
	}
	if err := u.limiter.Wait(ctx); err != nil {
		u.metrics.upstream.rateLimiterFailed(vpa)
		return err
	}
	if u.evict(ctx, vpa, pod, reason) {
		budget.Disrupted(pending)
	}
	return nil
}

// plan builds each group's budget and the VPA's sorted candidate list. A
// group below minReplicas gets no candidates, and a budget only for
// in-place work: resizes that bypass the budget
// (--in-place-skip-disruption-budget) or boosts to undo.
func (u *Updater) plan(ctx context.Context, w *vpaWork) (map[types.UID]*Budget, []planned) {
	log := klog.FromContext(ctx).WithValues("vpa", klog.KObj(w.vpa))
	minReplicas := u.cfg.MinReplicas
	if p := w.vpa.Spec.UpdatePolicy; p != nil && p.MinReplicas != nil {
		minReplicas = int(*p.MinReplicas)
	}
	mode := UpdateMode(w.vpa)
	boosting := u.boosting(w.vpa)
	skipBudget := u.cfg.InPlaceSkipDisruptionBudget && resizesInPlace(mode)
	now := u.clock.Now()
	budgets := map[types.UID]*Budget{}
	var plan []planned
	for uid, g := range w.groups {
		below := !EnoughReplicas(len(g.pods), minReplicas)
		undoBoost := boosting && slices.ContainsFunc(g.pods, boost.InProgress)
		if below && !skipBudget && !undoBoost {
			log.V(1).Info("Too few live replicas to update", "controller", g.owner.Name, "live", len(g.pods), "minReplicas", minReplicas)
			continue
		}
		configured, err := u.configured(ctx, w.vpa.Namespace, g.owner, len(g.pods))
		if err != nil {
			log.Info("Skipping controller", "controller", g.owner.Name, "err", err)
			continue
		}
		budget := NewBudget(configured, len(g.pods), countPending(g.pods), u.cfg.EvictionTolerance)
		budget.belowMin = below
		budgets[uid] = budget
		if !acting(mode, u.cfg.Features) || (below && !skipBudget) {
			continue
		}
		for _, pod := range g.pods {
			if boosting && boost.InProgress(pod) {
				continue
			}
			if c, ok := u.assess(w, pod, now); ok {
				plan = append(plan, planned{Candidate: c, owner: uid})
			}
		}
	}
	sortPlanned(plan)
	return budgets, plan
}

// assess processes the pod's recommendation and returns it as a candidate
// when it is worth updating.
func (u *Updater) assess(w *vpaWork, pod *corev1.Pod, now time.Time) (Candidate, bool) {
	processed := recommendation.Process(pod, w.vpa.Status.Recommendation, w.vpa.Spec.ResourcePolicy, w.limits)
	if len(processed.Containers) == 0 {
		return Candidate{}, false
	}
	th := VPAThresholds(w.vpa, u.cfg.Thresholds, u.cfg.Features)
	p := Assess(pod, processed, now, th)
	if !p.ShouldUpdate(th) {
		return Candidate{}, false
	}
	var reqs []*vpav1.EvictionRequirement
	if w.vpa.Spec.UpdatePolicy != nil {
		reqs = w.vpa.Spec.UpdatePolicy.EvictionRequirements
	}
	if !PassesEvictionRequirements(pod, processed, reqs) {
		return Candidate{}, false
	}
	return Candidate{Pod: pod, Priority: p, Processed: processed}, true
}

func sortPlanned(plan []planned) {
	cs := make([]Candidate, len(plan))
	owners := map[*corev1.Pod]types.UID{}
	for i, p := range plan {
		cs[i] = p.Candidate
		owners[p.Pod] = p.owner
	}
	// Sort by name first so that equal priorities evict in a stable order.
	slices.SortFunc(cs, func(a, b Candidate) int { return compareStrings(a.Pod.Name, b.Pod.Name) })
	SortByPriority(cs)
	for i, c := range cs {
		plan[i] = planned{Candidate: c, owner: owners[c.Pod]}
	}
}

func countPending(pods []*corev1.Pod) int {
	n := 0
	for _, p := range pods {
		if p.Status.Phase == corev1.PodPending {
			n++
		}
	}
	return n
}

// evict asks the API server to evict the pod through the Eviction API, so
// PodDisruptionBudgets are honoured. It reports whether the pod was evicted.
func (u *Updater) evict(ctx context.Context, vpa *vpav1.VerticalPodAutoscaler, pod *corev1.Pod, reason string) bool {
	log := klog.FromContext(ctx).WithValues("vpa", klog.KObj(vpa), "pod", klog.KObj(pod))
	ev := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace}}
	err := u.client.SubResource("eviction").Create(ctx, pod, ev)
	switch {
	case apierrors.IsTooManyRequests(err):
		u.metrics.failures.WithLabelValues("DisruptionBudget").Inc()
		u.metrics.upstream.failedEviction(vpa, reasonEvictionError)
		log.Info("Eviction refused by a PodDisruptionBudget", "err", err)
		return false
	case err != nil:
		u.metrics.failures.WithLabelValues("Error").Inc()
		u.metrics.upstream.failedEviction(vpa, reasonEvictionError)
		log.Error(err, "Evicting pod")
		return false
	}
	u.metrics.evictions.WithLabelValues(reason).Inc()
	u.metrics.upstream.evictedPod(vpa)
	u.recorder.Eventf(pod, vpa, corev1.EventTypeNormal, "EvictedByVPA", "Evict",
		"Pod was evicted by the VPA updater to apply the resource recommendation (%s).", reason)
	u.recorder.Eventf(vpa, pod, corev1.EventTypeNormal, "EvictedPod", "Evict",
		"The VPA updater evicted pod %s to apply the resource recommendation (%s).", pod.Name, reason)
	log.Info("Evicted pod", "reason", reason)
	return true
}

// updatable counts the planned pods their controller's budget lets go
// before this loop disrupts any: upstream's evictable (or in-place
// updatable) pods.
func updatable(plan []planned, budgets map[types.UID]*Budget) int {
	n := 0
	for _, c := range plan {
		if budgets[c.owner].CanDisrupt(c.Pod.Status.Phase == corev1.PodPending) {
			n++
		}
	}
	return n
}
