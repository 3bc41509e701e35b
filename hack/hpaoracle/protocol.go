package main

// Request is one HPA evaluation: the current replica count, the Pods
// metric's AverageValue target, the tolerances and the pods the selector
// matches with their metric values.
type Request struct {
	// Current is the scale's current replica count.
	Current int32 `json:"current"`
	// TargetMilli is the target average value in milli-units.
	TargetMilli int64 `json:"targetMilli"`
	// ToleranceUp and ToleranceDown are the scale-up and scale-down tolerances.
	ToleranceUp   float64 `json:"toleranceUp"`
	ToleranceDown float64 `json:"toleranceDown"`
	// Pods are the pods the HPA's selector matches.
	Pods []Pod `json:"pods"`
}

// Pod is one pod as the replica calculator sees it.
type Pod struct {
	// Phase is Pending, Running or Failed.
	Phase string `json:"phase"`
	// Deleting marks a pod with a deletion timestamp.
	Deleting bool `json:"deleting,omitempty"`
	// MetricMilli is the pod's metric value in milli-units; nil when the
	// metrics API returned none for it.
	MetricMilli *int64 `json:"metricMilli,omitempty"`
}

// Response is the calculator's answer.
type Response struct {
	// Replicas is the proposed replica count.
	Replicas int32 `json:"replicas"`
	// UsageMilli is the average metric value it computed.
	UsageMilli int64 `json:"usageMilli"`
	// Error is the calculator's error text, empty on success.
	Error string `json:"error,omitempty"`
}
