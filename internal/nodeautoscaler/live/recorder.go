package live

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/kscale/kscale/internal/nodeautoscaler"
)

// Kubernetes event reasons, upstream's names.
const (
	// ReasonTriggeredScaleUp is recorded on pods that caused a scale-up.
	ReasonTriggeredScaleUp = "TriggeredScaleUp"
	// ReasonNotTriggerScaleUp is recorded on pods no group could help.
	ReasonNotTriggerScaleUp = "NotTriggerScaleUp"
	// ReasonScaleDown is recorded on nodes being removed.
	ReasonScaleDown = "ScaleDown"
	// ReasonScaleDownFailed is recorded on nodes whose removal failed.
	ReasonScaleDownFailed = "ScaleDownFailed"
	// ReasonScaledUpGroup is recorded on the status ConfigMap per scale-up.
	ReasonScaledUpGroup = "ScaledUpGroup"
	// ReasonFailedToScaleUpGroup is recorded on the status ConfigMap when
	// the cloud refused a scale-up.
	ReasonFailedToScaleUpGroup = "FailedToScaleUpGroup"
)

// RecorderConfig configures a Recorder.
type RecorderConfig struct {
	// Events writes Kubernetes events (a record.EventRecorder of a
	// broadcaster recording to the API).
	Events record.EventRecorder
	// Cluster resolves the pods and nodes an event concerns from the view
	// of the running loop.
	Cluster *Cluster
	// Namespace holds the status ConfigMap that group-level events refer to.
	Namespace string
	// Clock times the deduplication.
	Clock clock.PassiveClock
	// DedupWindow suppresses an identical event on the same object within
	// it; default 5m.
	DedupWindow time.Duration
}

// Recorder turns the loop's events into Kubernetes events: NotTriggerScaleUp
// on the pods concerned, ScaleDown and ScaleDownFailed on nodes, and
// group-level events on the status ConfigMap, as upstream does. Identical
// events on the same object are recorded once per DedupWindow.
type Recorder struct {
	cfg  RecorderConfig
	mu   sync.Mutex
	seen map[dedupKey]time.Time
}

type dedupKey struct {
	uid             types.UID
	reason, message string
}

var _ nodeautoscaler.Recorder = (*Recorder)(nil)

// NewRecorder builds a Recorder.
func NewRecorder(cfg RecorderConfig) (*Recorder, error) {
	if cfg.DedupWindow == 0 {
		cfg.DedupWindow = 5 * time.Minute
	}
	if cfg.Events == nil || cfg.Cluster == nil || cfg.Clock == nil || cfg.Namespace == "" {
		return nil, fmt.Errorf("configuring event recorder: events, cluster, clock and namespace are required")
	}
	return &Recorder{cfg: cfg, seen: map[dedupKey]time.Time{}}, nil
}

// Record implements nodeautoscaler.Recorder.
func (r *Recorder) Record(ctx context.Context, e nodeautoscaler.Event) {
	klog.FromContext(ctx).V(1).Info("Autoscaler event", "type", e.Type, "nodeGroup", e.Group, "delta", e.Delta,
		"pods", e.Pods, "reason", e.Reason, "message", e.Message)
	switch e.Type {
	case nodeautoscaler.EventNotTriggerScaleUp:
		for _, p := range r.pendingPodsOf(e.Reason) {
			r.emit(p, p.UID, corev1.EventTypeNormal, ReasonNotTriggerScaleUp, "pod didn't trigger scale-up: "+e.Message)
		}
	case nodeautoscaler.EventScaleDownBlocked:
		// Kept nodes are explained by the log line above and the status
		// ConfigMap, not by an event per node and loop.
	case nodeautoscaler.EventScaleDownFailed:
		for _, n := range r.nodes(e.Nodes) {
			r.emit(n, n.UID, corev1.EventTypeWarning, ReasonScaleDownFailed, "failed to remove node: "+e.Reason+": "+e.Message)
		}
		r.groupEvent(e)
	case nodeautoscaler.EventDeleteNodes:
		// Scale-down deletes nodes that are in the view; the size repair
		// deletes instances that never registered, which have no node.
		for _, n := range r.nodes(e.Nodes) {
			r.emit(n, n.UID, corev1.EventTypeNormal, ReasonScaleDown, "node removed by the node autoscaler ("+e.Message+e.Reason+")")
		}
		r.groupEvent(e)
	default:
		r.groupEvent(e)
	}
}

// groupEvent records a group-level event on the status ConfigMap.
func (r *Recorder) groupEvent(e nodeautoscaler.Event) {
	ref := &corev1.ObjectReference{APIVersion: "v1", Kind: "ConfigMap", Namespace: r.cfg.Namespace, Name: StatusConfigMapName}
	typ, reason := corev1.EventTypeNormal, string(e.Type)
	msg := fmt.Sprintf("%s: node group %s delta %d: %s %s", e.Type, e.Group, e.Delta, e.Reason, e.Message)
	switch e.Type {
	case nodeautoscaler.EventScaleUp:
		reason = ReasonScaledUpGroup
		msg = fmt.Sprintf("Scale-up: node group %s +%d nodes for %d pods %s", e.Group, e.Delta, e.Pods, e.Message)
	case nodeautoscaler.EventScaleUpError:
		typ, reason = corev1.EventTypeWarning, ReasonFailedToScaleUpGroup
	case nodeautoscaler.EventBackoffStarted, nodeautoscaler.EventScaleUpTimedOut, nodeautoscaler.EventScaleUpFailed, nodeautoscaler.EventScaleDownFailed:
		typ = corev1.EventTypeWarning
	}
	r.emit(ref, types.UID("status/"+reason), typ, reason, msg)
}

func (r *Recorder) emit(obj runtime.Object, uid types.UID, typ, reason, msg string) {
	now := r.cfg.Clock.Now()
	k := dedupKey{uid: uid, reason: reason, message: msg}
	r.mu.Lock()
	for old, at := range r.seen {
		if now.Sub(at) >= r.cfg.DedupWindow {
			delete(r.seen, old)
		}
	}
	_, dup := r.seen[k]
	if !dup {
		r.seen[k] = now
	}
	r.mu.Unlock()
	if !dup {
		r.cfg.Events.Event(obj, typ, reason, msg)
	}
}

// pendingPodsOf returns the unschedulable pods of the loop's view whose
// owner key (namespace/controller name, or namespace/pod name) is key.
func (r *Recorder) pendingPodsOf(key string) []*corev1.Pod {
	v, err := r.cfg.Cluster.current()
	if err != nil {
		return nil
	}
	var out []*corev1.Pod
	for _, p := range v.Pods {
		if nodeautoscaler.IsUnschedulable(p) && ownerKey(p) == key {
			out = append(out, p)
		}
	}
	return out
}

func (r *Recorder) nodes(names []string) []*corev1.Node {
	v, err := r.cfg.Cluster.current()
	if err != nil {
		return nil
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var out []*corev1.Node
	for _, n := range v.Nodes {
		if want[n.Name] {
			out = append(out, n)
		}
	}
	return out
}

// ownerKey matches the loop's grouping of NotTriggerScaleUp events.
func ownerKey(p *corev1.Pod) string {
	for _, o := range p.OwnerReferences {
		if o.Controller != nil && *o.Controller {
			return p.Namespace + "/" + o.Name
		}
	}
	return p.Namespace + "/" + p.Name
}

// EventSource is the component name on the recorded events, upstream's.
const EventSource = "cluster-autoscaler"

// NewEventBroadcaster returns a broadcaster writing core/v1 events through
// client and a recorder on it; call Shutdown on the broadcaster when done.
func NewEventBroadcaster(ctx context.Context, client kubernetes.Interface) (record.EventBroadcaster, record.EventRecorder) {
	b := record.NewBroadcaster(record.WithContext(ctx))
	b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events("")})
	return b, b.NewRecorder(scheme.Scheme, corev1.EventSource{Component: EventSource})
}

// EventRecorder writes Kubernetes events; record.EventRecorder implements it.
type EventRecorder = record.EventRecorder
