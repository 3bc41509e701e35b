package recommender

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
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
		o.rec = r.est.Recommend(e.vpa, states)
		if len(o.rec.ContainerRecommendations) == 0 {
			o.rec = nil
			o.noRecReason, o.noRecMessage = ReasonNoContainers, "Every container of this VPA has mode Off"
		}
	}
	return o
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
	)
	now := metav1.NewTime(r.deps.Clock.Now())
	for range min(r.cfg.Workers, max(len(vpas), 1)) {
		wg.Go(func() {
			for e := range work {
				has, err := r.updateVPA(ctx, e, metricsErr, now)
				mu.Lock()
				if err != nil {
					errs = append(errs, err)
				}
				if has {
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
	return errors.Join(errs...)
}

// updateVPA computes and, when it changed, patches one VPA's status. It
// reports whether the VPA has a recommendation.
func (r *Recommender) updateVPA(ctx context.Context, e *vpaEntry, metricsErr error, now metav1.Time) (bool, error) {
	st := buildStatus(&e.vpa.Status, r.recommend(e, metricsErr), now)
	has := st.Recommendation != nil && len(st.Recommendation.ContainerRecommendations) > 0
	if apiequality.Semantic.DeepEqual(e.vpa.Status, st) {
		return has, nil
	}
	patch, err := json.Marshal([]map[string]any{{"op": "add", "path": "/status", "value": st}})
	if err != nil {
		return has, fmt.Errorf("encoding status of VPA %s/%s: %w", e.id.Namespace, e.id.Name, err)
	}
	_, err = r.deps.VPAs.VerticalPodAutoscalers(e.id.Namespace).Patch(ctx, e.id.Name, types.JSONPatchType, patch, metav1.PatchOptions{}, "status")
	if err != nil {
		return has, fmt.Errorf("patching status of VPA %s/%s: %w", e.id.Namespace, e.id.Name, err)
	}
	old := e.vpa.Status.Recommendation
	if has && (old == nil || len(old.ContainerRecommendations) == 0) {
		r.metrics.recommendationLatency.Observe(now.Sub(e.vpa.CreationTimestamp.Time).Seconds())
	}
	return has, nil
}
