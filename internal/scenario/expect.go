package scenario

import "fmt"

// Expectation is one assertion; exactly one field is set.
type Expectation struct {
	// Action asserts that a matching action happens in a window.
	Action *ActionExpectation `yaml:"action"`
	// Actions asserts the exact ordered list of actions in a window.
	Actions *ActionList `yaml:"actions"`
	// NoActions asserts that no action happens in a window.
	NoActions *Window `yaml:"noActions"`
	// Group asserts a node group's state at a time or at the end.
	Group *GroupExpectation `yaml:"group"`
	// PendingPods asserts the number of pending pods at a time or the end.
	PendingPods *PendingExpectation `yaml:"pendingPods"`
	// TargetTotal asserts the summed target of several groups.
	TargetTotal *TotalExpectation `yaml:"targetTotal"`
	// Event asserts how many timeline events of a type happen in a window.
	Event *EventExpectation `yaml:"event"`
	// MaxUnavailable bounds a workload's unavailable pods over a window.
	MaxUnavailable *UnavailableExpectation `yaml:"maxUnavailable"`
	// ZoneNodes asserts the number of nodes in a zone at a time.
	ZoneNodes *ZoneExpectation `yaml:"zoneNodes"`
	// Line is the expectation's line in the file.
	Line int `yaml:"-"`
}

// ActionMatch selects actions: type, and optionally group, delta and nodes.
type ActionMatch struct {
	// Type is ScaleUp, DecreaseTargetSize, DeleteNodes or EvictPod.
	Type string `yaml:"type"`
	// Group is the node group id.
	Group string `yaml:"group"`
	// Delta is the size change (negative for decreases and deletions).
	Delta *int `yaml:"delta"`
	// Nodes are the deleted instances or the evicted pod (ns/name).
	Nodes []string `yaml:"nodes"`
}

// Window is a time span [From, To]; open ends mean the start or the end.
type Window struct {
	// From is the start (inclusive).
	From *Duration `yaml:"from"`
	// To is the end (inclusive).
	To *Duration `yaml:"to"`
}

// ActionExpectation asserts that a matching action happens at, within or
// after a time.
type ActionExpectation struct {
	// ActionMatch selects the action.
	ActionMatch `yaml:",inline"`
	// At requires the action exactly at this time.
	At *Duration `yaml:"at"`
	// Window bounds when it may happen.
	Window `yaml:",inline"`
	// Bounds bound the number of matches (default: at least one).
	Bounds `yaml:",inline"`
}

// Bounds bound a number: Count exactly, or AtLeast and/or AtMost. Unset
// bounds are not checked.
type Bounds struct {
	// Count requires exactly this number.
	Count *int `yaml:"count"`
	// AtMost requires at most this number.
	AtMost *int `yaml:"atMost"`
	// AtLeast requires at least this number.
	AtLeast *int `yaml:"atLeast"`
}

// IsSet reports whether any bound is given.
func (b Bounds) IsSet() bool { return b.Count != nil || b.AtMost != nil || b.AtLeast != nil }

// Holds reports whether n is within the bounds.
func (b Bounds) Holds(n int) bool {
	return (b.Count == nil || n == *b.Count) && (b.AtMost == nil || n <= *b.AtMost) && (b.AtLeast == nil || n >= *b.AtLeast)
}

// String renders the bounds as "= 2", ">= 1", "<= 3" or ">= 1, <= 3".
func (b Bounds) String() string {
	switch {
	case b.Count != nil:
		return fmt.Sprintf("= %d", *b.Count)
	case b.AtLeast != nil && b.AtMost != nil:
		return fmt.Sprintf(">= %d, <= %d", *b.AtLeast, *b.AtMost)
	case b.AtLeast != nil:
		return fmt.Sprintf(">= %d", *b.AtLeast)
	case b.AtMost != nil:
		return fmt.Sprintf("<= %d", *b.AtMost)
	}
	return "any"
}

// EventExpectation asserts the number of timeline events of a type, with
// an optional group and reason, at a time or within a window.
type EventExpectation struct {
	// Type is a timeline event type (one of EventTypes).
	Type string `yaml:"type"`
	// Group is the node group id (optional filter).
	Group string `yaml:"group"`
	// Reason must be a substring of the event's reason or message
	// (optional filter).
	Reason string `yaml:"reason"`
	// At requires the events exactly at this time.
	At *Duration `yaml:"at"`
	// Window bounds when they count.
	Window `yaml:",inline"`
	// Bounds bound the number of matches (default: at least one).
	Bounds `yaml:",inline"`
}

// UnavailableExpectation bounds the largest number of a workload's
// unavailable pods (desired minus bound and ready) over a window.
type UnavailableExpectation struct {
	// Workload is the workload name.
	Workload string `yaml:"workload"`
	// Window bounds the samples considered.
	Window `yaml:",inline"`
	// AtMost is the highest accepted number.
	AtMost *int `yaml:"atMost"`
}

// ZoneExpectation asserts the number of nodes labelled with a zone.
type ZoneExpectation struct {
	// Zone is the topology.kubernetes.io/zone value.
	Zone string `yaml:"zone"`
	// At is the time (default: the end).
	At *Duration `yaml:"at"`
	// Bounds bound the number of nodes; at least one is required.
	Bounds `yaml:",inline"`
}

// ActionList asserts the exact ordered actions within a window.
type ActionList struct {
	// Window bounds the list.
	Window `yaml:",inline"`
	// Exactly is the expected list.
	Exactly []ActionMatch `yaml:"exactly"`
}

// GroupExpectation asserts a group's state; unset fields are not checked.
type GroupExpectation struct {
	// Name is the group id.
	Name string `yaml:"name"`
	// At is the time (default: the end).
	At *Duration `yaml:"at"`
	// Target is the expected target size.
	Target *int `yaml:"target"`
	// BackedOff is the expected backoff state.
	BackedOff *bool `yaml:"backedOff"`
	// Ready is the expected number of ready nodes.
	Ready *int `yaml:"ready"`
	// Registered is the expected number of registered nodes (ready or
	// not) the autoscaler counts for the group.
	Registered *int `yaml:"registered"`
}

// PendingExpectation asserts the pending pod count.
type PendingExpectation struct {
	// At is the time (default: the end).
	At *Duration `yaml:"at"`
	// Count is the expected number.
	Count int `yaml:"count"`
}

// TotalExpectation asserts that the summed target size of some groups is
// within [Min, Max] at a time or at the end.
type TotalExpectation struct {
	// Groups are the group ids.
	Groups []string `yaml:"groups"`
	// At is the time (default: the end).
	At *Duration `yaml:"at"`
	// Min is the lowest accepted sum.
	Min int `yaml:"min"`
	// Max is the highest accepted sum.
	Max int `yaml:"max"`
}
