// Package scaledown decides which nodes the node autoscaler removes. It is
// pure: it reads nodes, pods, PodDisruptionBudgets and node groups as values,
// takes the loop time as a value, and never talks to an API server or the
// cloud. internal/nodeautoscaler/actuation carries the plan out.
//
// A node is unneeded when its utilization (requests / allocatable, the larger
// of CPU and memory; GPU nodes by GPU) is at or below the threshold and every pod
// on it can move to the other existing nodes, as the simulator
// (internal/simulator) schedules them: the planner forks its snapshot,
// removes the node, places the node's pods on the rest and keeps the result
// when all of them fit, so later candidates see the moved pods. Empty nodes
// go first, then the least utilized. A node unneeded for
// --scale-down-unneeded-time (unready nodes: --scale-down-unready-time) is
// removed, within the node group minimum sizes, the parallelism limits and
// the cooldowns after a scale-up, a deletion or a failure.
//
// Every node that cannot be removed gets a typed Reason (see reason.go),
// which the loop shows in events and in simulate output.
package scaledown
