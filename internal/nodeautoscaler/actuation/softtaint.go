package actuation

import (
	"context"
	"strconv"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/clock"

	"github.com/kscale/kscale/internal/nodeautoscaler/clusterstate"
	"github.com/kscale/kscale/internal/nodeautoscaler/scaledown"
)

// DeletionCandidateTaint is upstream's soft taint on unneeded nodes:
// PreferNoSchedule, its value the Unix time it was set, so the scheduler
// prefers other nodes for new pods while the node may still be removed.
const DeletionCandidateTaint = clusterstate.DeletionCandidateTaint

// softTainter keeps the soft taint on the unneeded nodes and off the
// others, within a budget of writes and time per round.
type softTainter struct {
	count   int
	budget  time.Duration
	cluster Cluster
	clock   clock.PassiveClock
}

// update adds the soft taint to the ready unneeded nodes that lack it and
// removes it from the other nodes that carry it (removals first, as
// upstream), skipping nodes marked ToBeDeleted; upstream also taints
// unneeded nodes that are not ready. Each write spends one of
// count; once count or the time budget is spent the rest waits for the
// next round. Failed writes are logged and retried next round. It
// returns the number of writes done.
func (s *softTainter) update(ctx context.Context, nodes []scaledown.Node, unneeded []scaledown.Candidate, now time.Time) int {
	if s.count <= 0 {
		return 0
	}
	log := logr.FromContextOrDiscard(ctx)
	isUnneeded := make(map[string]bool, len(unneeded))
	for _, u := range unneeded {
		isUnneeded[u.Node.Name] = true
	}
	start, left, done := s.clock.Now(), s.count, 0
	spend := func() bool {
		if left <= 0 || s.clock.Since(start) >= s.budget {
			return false
		}
		left--
		done++
		return true
	}
	for _, n := range nodes {
		node := n.Node
		if isUnneeded[node.Name] || !clusterstate.HasTaint(node, DeletionCandidateTaint) || clusterstate.HasTaint(node, toBeDeleted.Key) {
			continue
		}
		if !spend() {
			return done
		}
		if err := s.cluster.RemoveTaints(ctx, node.Name, DeletionCandidateTaint); err != nil {
			log.Error(err, "Removing the soft taint failed", "node", node.Name)
		}
	}
	soft := corev1.Taint{Key: DeletionCandidateTaint, Value: strconv.FormatInt(now.Unix(), 10), Effect: corev1.TaintEffectPreferNoSchedule}
	for _, u := range unneeded {
		// A node that is not ready takes no pod anyway: the taint would only
		// cost two writes, and a node that has just registered (kube-apiserver
		// gives it the not-ready taint until the node lifecycle controller
		// lifts it) would carry it while the pods it was added for bind. It is
		// tainted once it is ready and still unneeded.
		if !u.Ready || clusterstate.HasTaint(u.Node, DeletionCandidateTaint) || clusterstate.HasTaint(u.Node, toBeDeleted.Key) {
			continue
		}
		if !spend() {
			return done
		}
		if err := s.cluster.AddTaint(ctx, u.Node.Name, soft); err != nil {
			log.Error(err, "Adding the soft taint failed", "node", u.Node.Name)
		}
	}
	return done
}
