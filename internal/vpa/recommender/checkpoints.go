package recommender

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/vpa/model"
)

// maintainCheckpoints writes the checkpoints of VPAs with history and,
// when due, deletes checkpoints of VPAs that no longer exist.
func (r *Recommender) maintainCheckpoints(ctx context.Context, vpas []*vpaEntry, now time.Time) error {
	ids := make([]model.VPAID, 0, len(vpas))
	for _, e := range vpas {
		for _, s := range r.cluster.ContainerStates(e.id) {
			if s.HasSamples() {
				ids = append(ids, e.id)
				break
			}
		}
	}
	n, err := r.ckpt.Write(ctx, r.cluster, ids, now)
	r.metrics.checkpointsWritten.Add(float64(n))
	if err != nil {
		return err
	}
	if !r.ckpt.GCDue(now) {
		return nil
	}
	list, err := r.deps.VPAs.VerticalPodAutoscalers(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing VPAs for checkpoint collection: %w", err)
	}
	existing := make(map[model.VPAID]bool, len(list.Items))
	for _, v := range list.Items {
		existing[model.VPAID{Namespace: v.Namespace, Name: v.Name}] = true
	}
	_, err = r.ckpt.GarbageCollect(ctx, existing, now)
	return err
}
