// Package clusterstate keeps the autoscaler's per-node-group view between
// loops: readiness buckets (ready, unready, not started, long not started,
// deleted, unregistered, long unregistered), upcoming nodes, scale-up
// requests with their provision deadlines, instance creation errors, backoff
// and node group sizes that drifted from what registered.
//
// It is pure: Update takes the provider's groups and instances, the nodes and
// `now`, and returns the events of that update; it never calls the cloud.
package clusterstate
