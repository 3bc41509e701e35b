package recommender

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"

	"github.com/kscale/kscale/internal/vpa/estimator"
	"github.com/kscale/kscale/internal/vpa/model"
)

// ReasonNoContainers says every container of the VPA has mode Off.
const ReasonNoContainers = "NoContainersToRecommend"

// recommend decides one VPA's outcome from the model. It only reads the
// model, so several VPAs may be recommended concurrently.
func (r *Recommender) recommend(e *vpaEntry, metricsErr error) outcome {
	o := outcome{noPods: !r.cluster.MatchesLivePods(e.id)}
	if e.configReason != "" {
		o.configReason, o.configMessage = e.configReason, e.configMsg
		return o
	}
	states := r.cluster.ContainerStates(e.id)
	hasSamples := false
	for _, s := range states {
		hasSamples = hasSamples || s.HasSamples()
	}
	switch {
	case !hasSamples && metricsErr != nil:
		o.noRecReason, o.noRecMessage = ReasonMetricsUnavailable, metricsErr.Error()
	case !hasSamples:
		o.noRecReason, o.noRecMessage = ReasonNoSamples, "No usage samples seen yet for the pods of this VPA"
	default:
		bounds := r.est.Compute(e.vpa, states)
		if len(bounds) == 0 {
			o.noRecReason, o.noRecMessage = ReasonNoContainers, "Every container of this VPA has mode Off"
			return o
		}
		o.rec = r.recs.get(e.id, bounds)
	}
	return o
}

// recCache keeps each VPA's last recommendation with the bounds it was
// built from, so an unchanged recommendation is not rebuilt every loop.
// It is safe for concurrent use.
type recCache struct {
	mu sync.Mutex
	m  map[model.VPAID]cachedRec
}

// cachedRec is one cached recommendation.
type cachedRec struct {
	bounds []estimator.ContainerBounds
	rec    *vpav1.RecommendedPodResources
}

// get returns the recommendation for bounds, reusing the cached one when
// the bounds are unchanged. The result must not be modified.
func (c *recCache) get(id model.VPAID, bounds []estimator.ContainerBounds) *vpav1.RecommendedPodResources {
	c.mu.Lock()
	prev, ok := c.m[id]
	c.mu.Unlock()
	if ok && slices.Equal(prev.bounds, bounds) {
		return prev.rec
	}
	rec := estimator.ToRecommendationReusing(bounds, prev.bounds, prev.rec)
	c.mu.Lock()
	if c.m == nil {
		c.m = map[model.VPAID]cachedRec{}
	}
	c.m[id] = cachedRec{bounds: bounds, rec: rec}
	c.mu.Unlock()
	return rec
}

// retain drops cached recommendations of VPAs not in keep.
func (c *recCache) retain(keep map[model.VPAID]bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id := range c.m {
		if !keep[id] {
			delete(c.m, id)
		}
	}
}

// updateVPAs writes every served VPA's status, using the configured
// number of workers.
func (r *Recommender) updateVPAs(ctx context.Context, vpas []*vpaEntry, metricsErr error) error {
	work := make(chan *vpaEntry)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		errs     []error
		withRec  int
		withoutR int
		objects  = map[vpaObject]int{}
	)
	now := metav1.NewTime(r.deps.Clock.Now())
	for range min(r.cfg.Workers, max(len(vpas), 1)) {
		wg.Go(func() {
			for e := range work {
				obj, err := r.updateVPA(ctx, e, metricsErr, now)
				mu.Lock()
				if err != nil {
					errs = append(errs, err)
				}
				objects[obj]++
				if obj.hasRecommendation {
					withRec++
				} else {
					withoutR++
				}
				mu.Unlock()
			}
		})
	}
	for _, e := range vpas {
		work <- e
	}
	close(work)
	wg.Wait()
	r.metrics.vpas.WithLabelValues("true").Set(float64(withRec))
	r.metrics.vpas.WithLabelValues("false").Set(float64(withoutR))
	r.metrics.upstream.setObjects(objects)
	return errors.Join(errs...)
}

// updateVPA computes and, when it changed, patches one VPA's status. It
// reports whether the VPA has a recommendation.
func (r *Recommender) updateVPA(ctx context.Context, e *vpaEntry, metricsErr error, now metav1.Time) (vpaObject, error) {
	o := r.recommend(e, metricsErr)
	st := buildStatus(&e.vpa.Status, o, now)
	has := st.Recommendation != nil && len(st.Recommendation.ContainerRecommendations) > 0
	obj := objectOf(e.vpa, o, has)
	if apiequality.Semantic.DeepEqual(e.vpa.Status, st) {
		return obj, nil
	}
	patch, err := json.Marshal([]map[string]any{{"op": "add", "path": "/status", "value": st}})
	if err != nil {
		return obj, fmt.Errorf("encoding status of VPA %s/%s: %w", e.id.Namespace, e.id.Name, err)
	}
	_, err = r.deps.VPAs.VerticalPodAutoscalers(e.id.Namespace).Patch(ctx, e.id.Name, types.JSONPatchType, patch, metav1.PatchOptions{}, "status")
	if err != nil {
		return obj, fmt.Errorf("patching status of VPA %s/%s: %w", e.id.Namespace, e.id.Name, err)
	}
	old := e.vpa.Status.Recommendation
	if has && (old == nil || len(old.ContainerRecommendations) == 0) {
		r.metrics.recommendationLatency.Observe(now.Sub(e.vpa.CreationTimestamp.Time).Seconds())
		r.metrics.upstream.latency.Observe(now.Sub(e.vpa.CreationTimestamp.Time).Seconds())
	}
	return obj, nil
}
