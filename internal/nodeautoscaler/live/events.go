package live

import (
	"context"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"
)

// EventOptions configure the event broadcaster.
type EventOptions struct {
	// StatusNamespace and StatusName name the status ConfigMap, whose
	// events are told apart by their message (default kube-system,
	// StatusConfigMapName).
	StatusNamespace, StatusName string
	// RecordDuplicated is --record-duplicated-events: client-go's default
	// correlator instead of upstream's.
	RecordDuplicated bool
	// Clock refills the spam filter; default the real clock.
	Clock clock.PassiveClock
}

// Upstream's correlator settings (cluster-autoscaler
// pkg/utils/kubernetes/factory.go): one event per key per five minutes.
const (
	eventSpamQPS   = 1.0 / 300
	eventSpamBurst = 1
	eventLRUSize   = 8192
)

// NewEventBroadcaster returns a broadcaster writing core/v1 events through
// client, configured as upstream's for the default status ConfigMap, and a
// recorder on it; call Shutdown on the broadcaster when done.
func NewEventBroadcaster(ctx context.Context, client kubernetes.Interface) (record.EventBroadcaster, record.EventRecorder) {
	return NewEventBroadcasterWith(ctx, client, EventOptions{})
}

// NewEventBroadcasterWith is NewEventBroadcaster with options. Unless
// RecordDuplicated, its spam filter has upstream's rate (one event per key
// per five minutes) and keys: events on the status ConfigMap by their
// message alone, so every distinct status message passes; other events by
// reason, source and object as upstream, plus the message, so that the
// second event of a reason on an object with another message ("marked
// the node" then "nodes removed") is not dropped as upstream drops it.
// client-go's default key ignores the reason and the message and lets
// about one event per object through every five minutes after a burst of
// 25. Identical events are also deduplicated by the Recorder.
func NewEventBroadcasterWith(ctx context.Context, client kubernetes.Interface, o EventOptions) (record.EventBroadcaster, record.EventRecorder) {
	if o.StatusNamespace == "" {
		o.StatusNamespace = "kube-system"
	}
	if o.StatusName == "" {
		o.StatusName = StatusConfigMapName
	}
	opts := []record.BroadcasterOption{record.WithContext(ctx)}
	if !o.RecordDuplicated {
		opts = append(opts, record.WithCorrelatorOptions(correlatorOptions(o)))
	}
	b := record.NewBroadcaster(opts...)
	b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events("")})
	return b, b.NewRecorder(scheme.Scheme, corev1.EventSource{Component: EventSource})
}

// correlatorOptions are upstream's correlator settings for o's status
// ConfigMap.
func correlatorOptions(o EventOptions) record.CorrelatorOptions {
	opts := record.CorrelatorOptions{QPS: eventSpamQPS, BurstSize: eventSpamBurst, LRUCacheSize: eventLRUSize,
		SpamKeyFunc: func(e *corev1.Event) string { return spamKey(e, o) }}
	if o.Clock != nil {
		opts.Clock = o.Clock
	}
	return opts
}

// spamKey is upstream's spam key: the message for events on the status
// ConfigMap, else the reason, source and object (and, in kscale, the
// message).
func spamKey(e *corev1.Event, o EventOptions) string {
	obj := e.InvolvedObject
	if obj.Kind == "ConfigMap" && obj.Namespace == o.StatusNamespace && obj.Name == o.StatusName {
		return e.Message
	}
	return strings.Join([]string{e.Reason, e.Source.Component, e.Source.Host,
		obj.Kind, obj.Namespace, obj.Name, string(obj.UID), obj.APIVersion, e.Message}, "")
}
