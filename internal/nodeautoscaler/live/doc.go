// Package live runs the node autoscaler against a real cluster: an
// informer-backed Cluster that gives each loop one consistent view, the
// Kubernetes event recorder, the priority-expander ConfigMap source, the
// cluster-autoscaler-status ConfigMap writer, the /metrics and /healthz
// server, and the Runner that calls the loop every scan interval once the
// caches have synced, under leader election.
package live
