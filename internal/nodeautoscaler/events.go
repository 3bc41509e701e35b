package nodeautoscaler

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// Cluster is the read side of Kubernetes the loop needs. Live it is backed
// by informer listers; offline by the simulated cluster. Returned objects
// must not be modified.
type Cluster interface {
	// ListNodes returns every node.
	ListNodes(ctx context.Context) ([]*corev1.Node, error)
	// ListPods returns every pod.
	ListPods(ctx context.Context) ([]*corev1.Pod, error)
	// ListDaemonSets returns every DaemonSet.
	ListDaemonSets(ctx context.Context) ([]*appsv1.DaemonSet, error)
}

// EventType names a decision or state change of the loop.
type EventType string

// Event types the loop records.
const (
	// EventScaleUp is a successful IncreaseSize.
	EventScaleUp EventType = "ScaleUp"
	// EventScaleUpError is a failed IncreaseSize call.
	EventScaleUpError EventType = "ScaleUpError"
	// EventDecreaseTargetSize is a DecreaseTargetSize by the size fixer.
	EventDecreaseTargetSize EventType = "DecreaseTargetSize"
	// EventDeleteNodes is a DeleteInstances call.
	EventDeleteNodes EventType = "DeleteNodes"
	// EventEvictPod is a pod eviction (scale-down).
	EventEvictPod EventType = "EvictPod"
	// EventBackoffStarted means a group was backed off.
	EventBackoffStarted EventType = "BackoffStarted"
	// EventBackoffCleared means a group may scale up again.
	EventBackoffCleared EventType = "BackoffCleared"
	// EventScaleUpTimedOut means nodes did not arrive in time.
	EventScaleUpTimedOut EventType = "ScaleUpTimedOut"
	// EventScaleUpFailed means the cloud reported creation errors.
	EventScaleUpFailed EventType = "ScaleUpFailed"
	// EventScaleUpCompleted means a scale-up request was fulfilled.
	EventScaleUpCompleted EventType = "ScaleUpCompleted"
	// EventNotTriggerScaleUp explains pending pods no group can help.
	EventNotTriggerScaleUp EventType = "NotTriggerScaleUp"
)

// Event is one thing the loop did or found.
type Event struct {
	// Type is what happened.
	Type EventType
	// Group is the node group id, when the event concerns one.
	Group string
	// Delta is the size change (negative for decreases and deletions).
	Delta int
	// Nodes are the deleted instances, or the evicted pod.
	Nodes []string
	// Pods is how many pods the event is about.
	Pods int
	// Reason is a short machine-readable reason.
	Reason string
	// Message explains the event.
	Message string
}

// Recorder receives the loop's events. Live it logs and emits Kubernetes
// events; offline it builds the timeline.
type Recorder interface {
	// Record takes one event.
	Record(ctx context.Context, e Event)
}
