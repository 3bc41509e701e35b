package offline

import (
	"encoding/json"
	"time"
)

// Event is one entry of the timeline.
type Event struct {
	// At is the time since the start.
	At time.Duration
	// Type is the event type (ScaleUp, NodeReady, PodScheduled, ...).
	Type string
	// Group is the node group, when there is one.
	Group string
	// Delta is a size change.
	Delta int
	// Nodes are node or instance names (or the evicted pod).
	Nodes []string
	// Pods is how many pods the event is about.
	Pods int
	// Reason is a short reason.
	Reason string
	// Message explains the event.
	Message string
}

// MarshalJSON writes the time as a duration string.
func (e Event) MarshalJSON() ([]byte, error) {
	type out struct {
		Time    string   `json:"time"`
		Type    string   `json:"type"`
		Group   string   `json:"group,omitempty"`
		Delta   int      `json:"delta,omitempty"`
		Nodes   []string `json:"nodes,omitempty"`
		Pods    int      `json:"pods,omitempty"`
		Reason  string   `json:"reason,omitempty"`
		Message string   `json:"message,omitempty"`
	}
	return json.Marshal(out{Time: e.At.String(), Type: e.Type, Group: e.Group, Delta: e.Delta, Nodes: e.Nodes,
		Pods: e.Pods, Reason: e.Reason, Message: e.Message})
}

// IsAction reports whether the event is a command the autoscaler gave.
func (e Event) IsAction() bool {
	switch e.Type {
	case "ScaleUp", "DecreaseTargetSize", "DeleteNodes", "EvictPod":
		return true
	}
	return false
}

// GroupSample is one group's state after a tick.
type GroupSample struct {
	// Target is the target size.
	Target int `json:"target"`
	// Ready is the number of ready nodes.
	Ready int `json:"ready"`
	// Nodes is the number of registered nodes.
	Nodes int `json:"nodes"`
	// BackedOff is the backoff state.
	BackedOff bool `json:"backedOff,omitempty"`
	// Unneeded is how many of the group's nodes the loop's scale-down
	// found unneeded.
	Unneeded int `json:"unneeded,omitempty"`
}

// Sample is the world's state after one tick.
type Sample struct {
	// At is the time since the start.
	At time.Duration `json:"-"`
	// Pending is the number of pending pods.
	Pending int `json:"pending"`
	// Pods is the number of pods in the cluster.
	Pods int `json:"pods"`
	// Groups holds each group's state by id.
	Groups map[string]GroupSample `json:"groups"`
	// Zones counts the nodes per topology.kubernetes.io/zone label value;
	// only filled when an expectation asks about zones.
	Zones map[string]int `json:"zones,omitempty"`
	// Unavailable counts the unavailable pods of the workloads an
	// expectation asks about, by workload name: desired pods minus pods
	// bound and ready.
	Unavailable map[string]int `json:"unavailable,omitempty"`
	// Requested sums the requests of the bound pods that run.
	Requested Usage `json:"requested"`
	// Allocatable sums the nodes' allocatable resources.
	Allocatable Usage `json:"allocatable"`
}

// GroupFinal is a group's state at the end.
type GroupFinal struct {
	// Min, Max and Target are the sizes.
	Min    int `json:"min"`
	Max    int `json:"max"`
	Target int `json:"target"`
	// Ready is the number of ready nodes.
	Ready int `json:"ready"`
	// BackedOff is the backoff state.
	BackedOff bool `json:"backedOff"`
	// BackoffReason is the last backoff reason code.
	BackoffReason string `json:"backoffReason,omitempty"`
}

// Final is the world's state at the end.
type Final struct {
	// Time is the simulated duration.
	Time string `json:"time"`
	// Groups holds each group's final state by id.
	Groups map[string]GroupFinal `json:"groups"`
	// PendingPods is the number of pending pods.
	PendingPods int `json:"pendingPods"`
	// Nodes is the number of nodes.
	Nodes int `json:"nodes"`
	// Loops is the number of autoscaler loops run.
	Loops int `json:"loops"`
	// LoopErrors is the number of loops that failed.
	LoopErrors int `json:"loopErrors"`
	// MaxLoop is the longest loop's wall time.
	MaxLoop string `json:"maxLoopWallTime,omitempty"`
	// MaxLoopAt is the simulated time of the longest loop.
	MaxLoopAt string `json:"maxLoopAt,omitempty"`
}

// Result is a finished simulation.
type Result struct {
	// Name is the scenario name.
	Name string
	// Events is the timeline.
	Events []Event
	// Samples are the per-tick states.
	Samples []Sample
	// GroupOrder lists group ids in the order they first appeared.
	GroupOrder []string
	// Final is the state at the end.
	Final Final
	// MaxLoopWall is the longest RunOnce in wall time.
	MaxLoopWall time.Duration
	// MaxLoopCPU is the most CPU time one RunOnce used on its thread.
	MaxLoopCPU time.Duration
	// Waits holds every pod that waited for a node: those bound after the
	// start with the time from creation to binding, then those still
	// pending at the end; longest wait first.
	Waits []PodWait
}
