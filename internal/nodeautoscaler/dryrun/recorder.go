package dryrun

import (
	"context"
	"errors"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/kscale/kscale/internal/nodeautoscaler"
)

// Decision is one decision of the dry-run loop, as the comparison with the
// running autoscaler takes it.
type Decision struct {
	// Time is when the loop decided.
	Time time.Time
	// Kind is one of the Decision* constants.
	Kind string
	// Group is the node group, when the decision concerns one.
	Group string
	// Delta is the size change (negative for removals).
	Delta int
	// Nodes are the nodes concerned (removals, unremovable nodes).
	Nodes []string
	// Pods are the pods concerned: helped by a scale-up, left pending by
	// no scale-up, moved by a removal.
	Pods []nodeautoscaler.PodRef
	// Reason is why, in the loop's words.
	Reason string
}

// Sink takes the dry-run loop's decisions.
type Sink interface {
	// Decided takes one decision.
	Decided(ctx context.Context, d Decision)
}

// RecorderConfig configures a Recorder.
type RecorderConfig struct {
	// Metrics count the decisions.
	Metrics *Metrics
	// Clock stamps the decisions.
	Clock clock.PassiveClock
	// Sink, when set, also takes every decision.
	Sink Sink
}

// Recorder is the dry-run loop's nodeautoscaler.Recorder: every decision
// is logged with a constant message and key/values and counted; no
// Kubernetes event is written.
type Recorder struct {
	cfg RecorderConfig
}

var _ nodeautoscaler.Recorder = (*Recorder)(nil)

// NewRecorder validates cfg and returns a Recorder.
func NewRecorder(cfg RecorderConfig) (*Recorder, error) {
	if cfg.Metrics == nil || cfg.Clock == nil {
		return nil, errors.New("configuring the dry-run recorder: metrics and clock are required")
	}
	return &Recorder{cfg: cfg}, nil
}

// Record implements nodeautoscaler.Recorder.
func (r *Recorder) Record(ctx context.Context, e nodeautoscaler.Event) {
	log := klog.FromContext(ctx)
	d := Decision{Time: r.cfg.Clock.Now(), Group: e.Group, Delta: e.Delta, Nodes: e.Nodes, Pods: e.PodRefs, Reason: e.Reason}
	switch e.Type {
	case nodeautoscaler.EventScaleUp:
		d.Kind, d.Reason = DecisionScaleUp, e.Message
		r.cfg.Metrics.nodes.WithLabelValues(e.Group).Add(float64(e.Delta))
		r.cfg.Metrics.pods.WithLabelValues(e.Group).Add(float64(e.Pods))
		log.Info("Dry run: would scale up", "nodeGroup", e.Group, "delta", e.Delta, "podsHelped", e.Pods,
			"pods", firstPods(e.PodRefs), "scaleUps", e.ScaleUps, "message", e.Message)
	case nodeautoscaler.EventNotTriggerScaleUp:
		d.Kind, d.Reason = DecisionNoScaleUp, nodeautoscaler.SummarizeReasons(e.GroupReasons)
		log.Info("Dry run: would not scale up for pods", "pods", e.Pods, "podRefs", firstPods(e.PodRefs), "reasons", d.Reason)
	case nodeautoscaler.EventScaleDownStarted:
		d.Kind, d.Reason, d.Delta = DecisionScaleDown, e.Message, -len(e.Nodes)
		log.Info("Dry run: would remove node", "nodeGroup", e.Group, "nodes", e.Nodes, "kind", e.Message, "podsToMove", e.Pods)
	case nodeautoscaler.EventDeleteNodes:
		d.Kind = DecisionDeleteNodes
		log.Info("Dry run: would delete nodes", "nodeGroup", e.Group, "nodes", e.Nodes, "reason", e.Reason, "message", e.Message)
	case nodeautoscaler.EventDecreaseTargetSize:
		d.Kind = DecisionDecreaseTargetSize
		log.Info("Dry run: would decrease target size", "nodeGroup", e.Group, "delta", e.Delta, "reason", e.Reason, "message", e.Message)
	case nodeautoscaler.EventScaleDownBlocked:
		d.Kind = DecisionUnremovable
		log.V(1).Info("Dry run: node not removable", "nodeGroup", e.Group, "nodes", e.Nodes, "reason", e.Reason, "message", e.Message)
	default:
		log.V(1).Info("Dry run: autoscaler event", "type", e.Type, "nodeGroup", e.Group, "delta", e.Delta,
			"nodes", e.Nodes, "reason", e.Reason, "message", e.Message)
		return
	}
	r.cfg.Metrics.decision(d.Kind, e.Group, metricReason(d))
	if r.cfg.Sink != nil {
		r.cfg.Sink.Decided(ctx, d)
	}
}

// metricReason keeps the reason label bounded: scale-up and no-scale-up
// messages are free text, so only the other kinds' reason codes are used.
func metricReason(d Decision) string {
	switch d.Kind {
	case DecisionScaleUp, DecisionNoScaleUp:
		return ""
	}
	return d.Reason
}

// maxLoggedPods bounds the pods named in one log line.
const maxLoggedPods = 10

// firstPods renders at most maxLoggedPods pods as namespace/name.
func firstPods(refs []nodeautoscaler.PodRef) []string {
	n := min(len(refs), maxLoggedPods)
	out := make([]string, n)
	for i, p := range refs[:n] {
		out[i] = p.Namespace + "/" + p.Name
	}
	return out
}
