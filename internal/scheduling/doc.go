// Package scheduling is the pure predicate algebra of the kscale scheduling
// simulator: resource requests and allocatable, taints and tolerations,
// required node affinity, host ports, inter-pod affinity terms, topology
// spread constraints and persistent-volume node affinity, each with
// kube-scheduler's semantics.
//
// Nothing here keeps state across calls, talks to an API server or reads a
// clock; internal/simulator combines these pieces with a cluster snapshot.
package scheduling
