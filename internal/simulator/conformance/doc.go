// Package conformance holds a table of kube-scheduler scenarios (nodes,
// bound pods, volumes, namespaces and one incoming pod) with the node the
// pod must land on, or none. Each case is built so that at most one node
// is feasible, so kube-scheduler's answer is exact whatever its scoring.
//
// The same table runs against the simulator (RunSimulator, in unit tests)
// and against a real kube-scheduler on the test control plane
// (scheduler_test.go); both must agree with every case. Where they would
// disagree, kube-scheduler is right and the simulator is fixed.
package conformance
