// Package actuation carries out scale-down plans (internal/nodeautoscaler/
// scaledown) as a state machine that advances once per loop, with the loop
// time passed in: no goroutines, no sleeps, no wall clock.
//
// An empty node is tainted ToBeDeletedByClusterAutoscaler, then
// BeingDeletedByClusterAutoscaler, and deleted through the provider with the
// other empty nodes of its group in one call. A node with pods is tainted
// ToBeDeletedByClusterAutoscaler (NoSchedule) and drained: every pod is
// evicted through the eviction API, with a UID precondition so a pod
// recreated under the same name is never evicted by mistake; refused
// evictions (a PodDisruptionBudget allows no disruption now) are retried on
// every step until --max-pod-eviction-time after the drain started. When the
// pods are gone the node is tainted BeingDeletedByClusterAutoscaler and
// deleted. On any failure both taints are removed and the failure is
// reported with its kind and reason. At start, leftover taints of an earlier
// process are removed.
//
// The actuator reaches the cluster through Cluster, a narrow interface with
// two implementations: Kube (client-go, for live clusters) and, for unit
// tests only, memcluster, which stands in for the API server and enforces
// PodDisruptionBudgets the way the eviction API does.
package actuation
