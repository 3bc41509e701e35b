package nodeautoscaler

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kscale/kscale/internal/nodeautoscaler/scaleup"
)

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
	// EventScaleDownStarted means scale-down marked a node ToBeDeleted and
	// began removing it: at once when it is empty, after a drain
	// otherwise.
	EventScaleDownStarted EventType = "ScaleDownStarted"
	// EventClusterUnhealthy means the loop halted: more nodes are unready
	// than --ok-total-unready-count and --max-total-unready-percentage allow.
	EventClusterUnhealthy EventType = "ClusterUnhealthy"
	// EventNodeGroupOptionsInvalid means a group carries autoscaling
	// option values kscale cannot use; it runs on the global settings.
	EventNodeGroupOptionsInvalid EventType = "NodeGroupOptionsInvalid"
)

// Reasons of EventDeleteNodes: who deleted the instances.
const (
	// DeleteReasonScaleDown: scale-down removed the node; Message is the
	// deletion kind (empty or nonEmpty).
	DeleteReasonScaleDown = "ScaleDown"
	// DeleteReasonLongUnregistered: instances that never registered as a
	// node within the provision time.
	DeleteReasonLongUnregistered = "LongUnregistered"
	// DeleteReasonCreationFailed: instances the cloud failed to create.
	DeleteReasonCreationFailed = "CreationFailed"
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
	// PodRefs name the pods the event is about: for EventScaleUp the pods
	// whose estimate chose this scale-up, for EventNotTriggerScaleUp the
	// pending pods no group helps, for EventScaleDownStarted the pods to
	// move off the node. Shared between events; do not modify.
	PodRefs []PodRef
	// ScaleUps are, for EventScaleUp, every group size change of the
	// loop's scale-up (one entry per group when balancing).
	ScaleUps []ScaleUpInfo
	// GroupReasons are, for EventNotTriggerScaleUp, why each group could
	// not help the pods.
	GroupReasons []scaleup.GroupReason
}

// PodRef names one pod.
type PodRef struct {
	// Namespace and Name identify the pod.
	Namespace, Name string
	// UID tells this pod from a later one of the same name.
	UID types.UID
}

// PodRefOf returns the reference of p.
func PodRefOf(p *corev1.Pod) PodRef {
	return PodRef{Namespace: p.Namespace, Name: p.Name, UID: p.UID}
}

// PodRefsOf returns the references of pods, nil for none.
func PodRefsOf(pods []*corev1.Pod) []PodRef {
	if len(pods) == 0 {
		return nil
	}
	out := make([]PodRef, len(pods))
	for i, p := range pods {
		out[i] = PodRefOf(p)
	}
	return out
}

// ScaleUpInfo is one group's size change.
type ScaleUpInfo struct {
	// Group is the node group id.
	Group string
	// From and To are the target size before and after; Max is the
	// group's maximum.
	From, To, Max int
}

// String renders the change as upstream's TriggeredScaleUp event lists
// it: "{group 1->3 (max: 10)}".
func (s ScaleUpInfo) String() string {
	return fmt.Sprintf("{%s %d->%d (max: %d)}", s.Group, s.From, s.To, s.Max)
}

// Recorder receives the loop's events. Live it logs and emits Kubernetes
// events; offline it builds the timeline.
type Recorder interface {
	// Record takes one event.
	Record(ctx context.Context, e Event)
}

// Reasons of scaleup.GroupReason the summary rewrites into upstream's words.
const (
	reasonMaxSize       = "max size reached"
	reasonMaxNodesTotal = "max nodes total reached"
	reasonNoFitPrefix   = "does not fit the template: "
)

// SummarizeReasons renders per-group reasons as upstream's
// NotTriggerScaleUp event does: each distinct reason once, prefixed with
// the number of groups that gave it, most frequent first, e.g.
// "2 max node group size reached, 1 Insufficient cpu". A template misfit
// is reported by the scheduling filter's own reason, as upstream does.
func SummarizeReasons(reasons []scaleup.GroupReason) string {
	counts := map[string]int{}
	var order []string
	for _, r := range reasons {
		text := upstreamReason(r.Reason)
		if counts[text] == 0 {
			order = append(order, text)
		}
		counts[text]++
	}
	slices.SortStableFunc(order, func(a, b string) int {
		if c := counts[b] - counts[a]; c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(order))
	for i, text := range order {
		parts[i] = fmt.Sprintf("%d %s", counts[text], text)
	}
	return strings.Join(parts, ", ")
}

func upstreamReason(r string) string {
	switch {
	case r == reasonMaxSize:
		return "max node group size reached"
	case r == reasonMaxNodesTotal:
		return "max total nodes in cluster reached"
	case strings.HasPrefix(r, reasonNoFitPrefix):
		// "<filter>: <reason>"; the filter name is ours, the reason
		// kube-scheduler's.
		rest := strings.TrimPrefix(r, reasonNoFitPrefix)
		if _, reason, ok := strings.Cut(rest, ": "); ok {
			return reason
		}
		return rest
	}
	return r
}
