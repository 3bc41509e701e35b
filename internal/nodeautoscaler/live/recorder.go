package live

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/kscale/kscale/internal/nodeautoscaler"
	"github.com/kscale/kscale/internal/nodeautoscaler/actuation"
)

// Kubernetes event reasons, upstream's names.
const (
	// ReasonTriggeredScaleUp is recorded on pods that caused a scale-up.
	ReasonTriggeredScaleUp = "TriggeredScaleUp"
	// ReasonNotTriggerScaleUp is recorded on pods no group could help.
	ReasonNotTriggerScaleUp = "NotTriggerScaleUp"
	// ReasonScaleDown is recorded on nodes being removed, on the pods
	// moved off them and on the status ConfigMap per removed node.
	ReasonScaleDown = "ScaleDown"
	// ReasonScaleDownEmpty is recorded on the status ConfigMap per empty
	// node removed.
	ReasonScaleDownEmpty = "ScaleDownEmpty"
	// ReasonScaleDownFailed is recorded on nodes whose removal failed.
	ReasonScaleDownFailed = "ScaleDownFailed"
	// ReasonScaledUpGroup is recorded on the status ConfigMap per scale-up.
	ReasonScaledUpGroup = "ScaledUpGroup"
	// ReasonFailedToScaleUpGroup is recorded on the status ConfigMap when
	// the cloud refused a scale-up.
	ReasonFailedToScaleUpGroup = "FailedToScaleUpGroup"
)

// Event messages, upstream's wording.
const (
	msgMarked        = "marked the node as toBeDeleted/unschedulable"
	msgRemoved       = "nodes removed by cluster autoscaler"
	msgPodScaleDown  = "deleting pod for node scale down"
	msgTriggered     = "pod triggered scale-up: "
	msgNotTriggered  = "pod didn't trigger scale-up: "
	maxListedPods    = 10
	defaultDedupTime = 5 * time.Minute
)

// RecorderConfig configures a Recorder.
type RecorderConfig struct {
	// Events writes Kubernetes events (a record.EventRecorder of a
	// broadcaster recording to the API).
	Events record.EventRecorder
	// Cluster resolves the nodes an event concerns from the view of the
	// running loop.
	Cluster *Cluster
	// Namespace holds the status ConfigMap that group-level events refer to.
	Namespace string
	// StatusConfigMapName names that ConfigMap (--status-config-map-name);
	// default StatusConfigMapName.
	StatusConfigMapName string
	// StatusUID returns the UID of that ConfigMap as last written
	// (StatusWriter.UID), which its events carry as upstream's do; nil or
	// "" leaves the UID out (no status ConfigMap is written).
	StatusUID func() types.UID
	// Clock times the deduplication.
	Clock clock.PassiveClock
	// DedupWindow suppresses an identical event on the same object within
	// it; default 5m.
	DedupWindow time.Duration
}

// Recorder turns the loop's events into Kubernetes events as upstream
// does: TriggeredScaleUp and NotTriggerScaleUp on the pods concerned;
// ScaleDown and ScaleDownFailed on nodes (and ScaleDown on the pods a
// drain moves); group-level events on the status ConfigMap. Identical
// events on the same object are recorded once per DedupWindow.
type Recorder struct {
	cfg       RecorderConfig
	mu        sync.Mutex
	seen      map[dedupKey]time.Time
	lastPrune time.Time
}

type dedupKey struct {
	uid             types.UID
	reason, message string
}

var _ nodeautoscaler.Recorder = (*Recorder)(nil)

// NewRecorder builds a Recorder.
func NewRecorder(cfg RecorderConfig) (*Recorder, error) {
	if cfg.DedupWindow == 0 {
		cfg.DedupWindow = defaultDedupTime
	}
	if cfg.StatusConfigMapName == "" {
		cfg.StatusConfigMapName = StatusConfigMapName
	}
	if cfg.Events == nil || cfg.Cluster == nil || cfg.Clock == nil || cfg.Namespace == "" {
		return nil, fmt.Errorf("configuring event recorder: events, cluster, clock and namespace are required")
	}
	return &Recorder{cfg: cfg, seen: map[dedupKey]time.Time{}}, nil
}

// Record implements nodeautoscaler.Recorder.
func (r *Recorder) Record(ctx context.Context, e nodeautoscaler.Event) {
	klog.FromContext(ctx).V(1).Info("Autoscaler event", "type", e.Type, "nodeGroup", e.Group, "delta", e.Delta,
		"pods", e.Pods, "nodes", e.Nodes, "reason", e.Reason, "message", e.Message)
	switch e.Type {
	case nodeautoscaler.EventScaleUp:
		r.podEvents(e.PodRefs, corev1.EventTypeNormal, ReasonTriggeredScaleUp, msgTriggered+fmt.Sprint(e.ScaleUps))
		r.groupEvent(e)
	case nodeautoscaler.EventNotTriggerScaleUp:
		msg := e.Message
		if len(e.GroupReasons) > 0 {
			msg = nodeautoscaler.SummarizeReasons(e.GroupReasons)
		}
		r.podEvents(e.PodRefs, corev1.EventTypeNormal, ReasonNotTriggerScaleUp, msgNotTriggered+msg)
	case nodeautoscaler.EventScaleDownBlocked:
		// Kept nodes are explained by the log line above and the status
		// ConfigMap, not by an event per node and loop.
	case nodeautoscaler.EventScaleDownStarted:
		r.nodeEvents(e.Nodes, corev1.EventTypeNormal, ReasonScaleDown, msgMarked)
		r.podEvents(e.PodRefs, corev1.EventTypeNormal, ReasonScaleDown, msgPodScaleDown)
		r.scaleDownLog(e)
	case nodeautoscaler.EventScaleDownFailed:
		r.nodeEvents(e.Nodes, corev1.EventTypeWarning, ReasonScaleDownFailed, e.Message)
		r.groupEvent(e)
	case nodeautoscaler.EventTemplateMismatch, nodeautoscaler.EventTemplateMismatchBlocked:
		r.nodeEvents(e.Nodes, corev1.EventTypeWarning, string(e.Type), e.Message)
		r.groupEvent(e)
	case nodeautoscaler.EventDeleteNodes:
		if e.Reason != nodeautoscaler.DeleteReasonScaleDown {
			// The size repair deletes instances that never registered;
			// they have no node.
			r.groupEvent(e)
			return
		}
		r.nodeEvents(e.Nodes, corev1.EventTypeNormal, ReasonScaleDown, msgRemoved)
		r.scaleDownLog(e)
	default:
		r.groupEvent(e)
	}
}

// groupEvent records a group-level event on the status ConfigMap.
func (r *Recorder) groupEvent(e nodeautoscaler.Event) {
	typ, reason := corev1.EventTypeNormal, string(e.Type)
	msg := fmt.Sprintf("%s: node group %s delta %d: %s %s", e.Type, e.Group, e.Delta, e.Reason, e.Message)
	switch e.Type {
	case nodeautoscaler.EventScaleUp:
		reason = ReasonScaledUpGroup
		msg = fmt.Sprintf("Scale-up: node group %s +%d nodes for %d pods %s", e.Group, e.Delta, e.Pods, e.Message)
		for _, s := range e.ScaleUps {
			if s.Group == e.Group {
				msg = fmt.Sprintf("Scale-up: setting group %s size to %d instead of %d (max: %d)", s.Group, s.To, s.From, s.Max)
			}
		}
	case nodeautoscaler.EventScaleUpError:
		typ, reason = corev1.EventTypeWarning, ReasonFailedToScaleUpGroup
	case nodeautoscaler.EventClusterUnhealthy:
		typ, msg = corev1.EventTypeWarning, "Cluster is unhealthy"
	case nodeautoscaler.EventBackoffStarted, nodeautoscaler.EventScaleUpTimedOut, nodeautoscaler.EventScaleUpFailed, nodeautoscaler.EventScaleDownFailed,
		nodeautoscaler.EventTemplateMismatch, nodeautoscaler.EventTemplateMismatchBlocked, nodeautoscaler.EventNodeGroupOptionsInvalid:
		typ = corev1.EventTypeWarning
	}
	r.statusEvent(typ, reason, msg)
}

// scaleDownLog records a node removal's start or end on the status
// ConfigMap, upstream's log events.
func (r *Recorder) scaleDownLog(e nodeautoscaler.Event) {
	empty := e.Message == string(actuation.KindEmpty)
	for _, n := range e.Nodes {
		switch {
		case e.Type == nodeautoscaler.EventScaleDownStarted && empty:
			r.statusEvent(corev1.EventTypeNormal, ReasonScaleDownEmpty, fmt.Sprintf("Scale-down: removing empty node %q", n))
		case e.Type == nodeautoscaler.EventScaleDownStarted:
			r.statusEvent(corev1.EventTypeNormal, ReasonScaleDown, fmt.Sprintf("Scale-down: removing node %s, pods to reschedule: %s",
				n, podList(e.PodRefs)))
		case empty:
			r.statusEvent(corev1.EventTypeNormal, ReasonScaleDownEmpty, fmt.Sprintf("Scale-down: empty node %s removed", n))
		default:
			r.statusEvent(corev1.EventTypeNormal, ReasonScaleDown, fmt.Sprintf("Scale-down: node %s removed with drain", n))
		}
	}
}

// podList names the pods, the first maxListedPods of them.
func podList(refs []nodeautoscaler.PodRef) string {
	names := make([]string, 0, min(len(refs), maxListedPods)+1)
	for i, p := range refs {
		if i == maxListedPods {
			names = append(names, fmt.Sprintf("and %d more", len(refs)-i))
			break
		}
		names = append(names, p.Namespace+"/"+p.Name)
	}
	return strings.Join(names, ",")
}

func (r *Recorder) statusEvent(typ, reason, msg string) {
	if r.fresh(types.UID("status/"+reason), reason, msg) {
		ref := &corev1.ObjectReference{APIVersion: "v1", Kind: "ConfigMap", Namespace: r.cfg.Namespace, Name: r.cfg.StatusConfigMapName}
		if r.cfg.StatusUID != nil {
			ref.UID = r.cfg.StatusUID()
		}
		r.cfg.Events.Event(ref, typ, reason, msg)
	}
}

func (r *Recorder) podEvents(pods []nodeautoscaler.PodRef, typ, reason, msg string) {
	for _, p := range pods {
		if r.fresh(p.UID, reason, msg) {
			ref := &corev1.ObjectReference{APIVersion: "v1", Kind: "Pod", Namespace: p.Namespace, Name: p.Name, UID: p.UID}
			r.cfg.Events.Event(ref, typ, reason, msg)
		}
	}
}

func (r *Recorder) nodeEvents(names []string, typ, reason, msg string) {
	for _, n := range r.nodes(names) {
		if r.fresh(n.UID, reason, msg) {
			r.cfg.Events.Event(n, typ, reason, msg)
		}
	}
}

// fresh reports whether no identical event on the object was recorded
// within the window, and if so remembers this one.
func (r *Recorder) fresh(uid types.UID, reason, msg string) bool {
	now := r.cfg.Clock.Now()
	k := dedupKey{uid: uid, reason: reason, message: msg}
	r.mu.Lock()
	defer r.mu.Unlock()
	if now.Sub(r.lastPrune) >= r.cfg.DedupWindow {
		for old, at := range r.seen {
			if now.Sub(at) >= r.cfg.DedupWindow {
				delete(r.seen, old)
			}
		}
		r.lastPrune = now
	}
	if at, ok := r.seen[k]; ok && now.Sub(at) < r.cfg.DedupWindow {
		return false
	}
	r.seen[k] = now
	return true
}

// nodes returns the nodes of the loop's view with the given names; names
// without a node (instances that never registered) are skipped.
func (r *Recorder) nodes(names []string) []*corev1.Node {
	if len(names) == 0 {
		return nil
	}
	v, err := r.cfg.Cluster.Current()
	if err != nil {
		return nil
	}
	want := make(map[string]bool, len(names))
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

// EventSource is the component name on the recorded events, upstream's.
const EventSource = "cluster-autoscaler"

// EventRecorder writes Kubernetes events; record.EventRecorder implements it.
type EventRecorder = record.EventRecorder
