package actuation

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Kind says whether a deleted node had pods to drain.
type Kind string

// Deletion kinds, as metric label values.
const (
	// KindEmpty nodes had no pods to move.
	KindEmpty Kind = "empty"
	// KindNonEmpty nodes were drained first.
	KindNonEmpty Kind = "nonEmpty"
)

// FailureReason says why a node deletion failed.
type FailureReason string

// Failure reasons.
const (
	// FailureTaint: a taint could not be added.
	FailureTaint FailureReason = "TaintFailed"
	// FailureEvictionTimeout: some pod could not be evicted within
	// --max-pod-eviction-time.
	FailureEvictionTimeout FailureReason = "EvictionTimedOut"
	// FailurePodsRemaining: evicted pods did not terminate within their
	// grace period and the headroom.
	FailurePodsRemaining FailureReason = "PodsRemaining"
	// FailureCloudDelete: the provider refused to delete the instance.
	FailureCloudDelete FailureReason = "CloudDeleteFailed"
	// FailureNotEmpty: a node planned as empty had gained a pod by the time
	// it was tainted.
	FailureNotEmpty FailureReason = "NotEmptyAnyMore"
	// FailureNodeRead: the node could not be read while waiting for its
	// delay-deletion annotations to go.
	FailureNodeRead FailureReason = "NodeReadFailed"
	// FailureAtomicGroup: another node of the zero-or-max group failed, so
	// this one was given up with it (upstream: scale down failed for node
	// group as a whole).
	FailureAtomicGroup FailureReason = "AtomicGroupFailed"
)

// Code returns the fork's numeric result code used as the reason label of
// cluster_autoscaler_failed_scale_down_total: 1 could not taint, 2 eviction
// failed, 3 cloud delete failed (also a node that could not be read before
// its deletion and a node given up with its zero-or-max group, upstream's
// failed-to-delete), and kscale's 4: the empty node gained a pod.
func (r FailureReason) Code() string {
	switch r {
	case FailureTaint:
		return "1"
	case FailureEvictionTimeout, FailurePodsRemaining:
		return "2"
	case FailureNotEmpty:
		return "4"
	default:
		return "3"
	}
}

// Started is a node deletion that began: the node was marked ToBeDeleted.
type Started struct {
	// Node is the node name.
	Node string
	// Group is the node group id.
	Group string
	// Kind is empty (deleted at once) or non-empty (drained first).
	Kind Kind
	// Pods are the pods to move off the node; none for empty nodes.
	Pods []*corev1.Pod
}

// Outcome is how one node deletion ended.
type Outcome struct {
	// Node is the node name.
	Node string
	// Group is the node group id.
	Group string
	// Kind is empty or non-empty.
	Kind Kind
	// Started and Ended bound the deletion.
	Started, Ended time.Time
	// Failure is set when the deletion failed.
	Failure FailureReason
	// Err is the error behind the failure.
	Err error
	// Evicted counts the pods evicted from the node.
	Evicted int
}

// Failed reports whether the deletion failed.
func (o Outcome) Failed() bool { return o.Failure != "" }

// String renders the outcome for events.
func (o Outcome) String() string {
	if o.Failed() {
		return fmt.Sprintf("deleting %s node %s of %s failed: %s: %v", o.Kind, o.Node, o.Group, o.Failure, o.Err)
	}
	return fmt.Sprintf("deleted %s node %s of %s after %s", o.Kind, o.Node, o.Group, o.Ended.Sub(o.Started))
}
