package scenario

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
	// Count requires exactly this many matches (default: at least one).
	Count *int `yaml:"count"`
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
