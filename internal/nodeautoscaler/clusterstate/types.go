package clusterstate

import (
	"time"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/nodeautoscaler/backoff"
)

// Readiness counts a group's nodes and instances per bucket.
type Readiness struct {
	// Ready, Unready, NotStarted, LongNotStarted and Deleted count
	// registered nodes.
	Ready, Unready, NotStarted, LongNotStarted, Deleted int
	// Unregistered counts instances (placeholders included) without a node;
	// LongUnregistered those without one for longer than the provision time.
	Unregistered, LongUnregistered int
}

// Registered is the number of nodes that joined the cluster.
func (r Readiness) Registered() int {
	return r.Ready + r.Unready + r.NotStarted + r.LongNotStarted + r.Deleted
}

// provisioned counts nodes that finished starting.
func (r Readiness) provisioned() int { return r.Ready + r.Unready + r.Deleted }

// GroupState is one node group as of the last Update.
type GroupState struct {
	// Group is the provider's view.
	Group cloudprovider.NodeGroup
	// Readiness are the bucket counts.
	Readiness Readiness
	// Upcoming is how many nodes are expected to become ready; 0 for
	// backed-off groups.
	Upcoming int
	// Backoff is the group's backoff state.
	Backoff backoff.Status
	// ScaleUpInProgress is true while a scale-up request is open.
	ScaleUpInProgress bool
	// ErrorInstances are instances that failed to be created.
	ErrorInstances []cloudprovider.Instance
	// LongUnregistered are instances (never placeholders of backed-off
	// groups) without a node for longer than the provision time.
	LongUnregistered []cloudprovider.Instance
	// TemplateMismatch, when set, says how the group's real nodes differ
	// from its template and which pods it is not scaled up for; the
	// loop's template mismatch guard fills it in Autoscaler.State.
	TemplateMismatch string

	unregistered []cloudprovider.Instance
}

// EventType names what happened during an update.
type EventType string

// Event types.
const (
	// BackoffStarted means a group was backed off.
	BackoffStarted EventType = "BackoffStarted"
	// BackoffCleared means a group's backoff ended because it recovered.
	BackoffCleared EventType = "BackoffCleared"
	// ScaleUpTimedOut means a scale-up request passed its deadline.
	ScaleUpTimedOut EventType = "ScaleUpTimedOut"
	// ScaleUpFailed means the cloud reported instance creation errors.
	ScaleUpFailed EventType = "ScaleUpFailed"
	// ScaleUpCompleted means a scale-up request was fulfilled.
	ScaleUpCompleted EventType = "ScaleUpCompleted"
)

// Event is one state change found by Update.
type Event struct {
	// Type is what happened.
	Type EventType
	// Group is the node group id.
	Group string
	// Reason carries the failure reason, when there is one.
	Reason backoff.Reason
	// Message is a short explanation.
	Message string
	// Nodes is how many nodes failed to come up, for ScaleUpFailed (the
	// failed instances) and ScaleUpTimedOut (the open request's increase).
	Nodes int
}

// ScaleUpRequest is an open scale-up of one group.
type ScaleUpRequest struct {
	// Increase is how many nodes were requested in total.
	Increase int
	// Time is when the request was first made.
	Time time.Time
	// Deadline is when it times out; refreshed when the request grows.
	Deadline time.Time
}

// incorrectSize is a target that differs from what registered.
type incorrectSize struct {
	current, expected int
	firstObserved     time.Time
}

// SizeFix is a target decrease the size fixer wants.
type SizeFix struct {
	// Group is the node group id.
	Group string
	// Delta is how much to lower the target (positive).
	Delta int
}
