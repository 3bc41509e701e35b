// Package actuation carries out scale-down plans (internal/nodeautoscaler/
// scaledown) as a state machine that advances once per loop, with the loop
// time passed in: no goroutines, no sleeps, no wall clock.
//
// Every node to remove is tainted ToBeDeletedByClusterAutoscaler (and, with
// --cordon-node-before-terminating, set unschedulable). After
// --node-delete-delay-after-taint an empty node is checked once more, its
// DaemonSet pods are evicted best effort (--daemonset-eviction-for-empty-
// nodes), and it is deleted with the other empty nodes of its group in one
// provider call. A node with pods is drained: every pod is evicted through
// the eviction API, with a UID precondition so a pod recreated under the
// same name is never evicted by mistake; refused evictions (a
// PodDisruptionBudget allows no disruption now) are retried on every step
// until --max-pod-eviction-time after the drain started. Its DaemonSet pods
// are evicted best effort alongside (--daemonset-eviction-for-occupied-
// nodes); the pod annotation cluster-autoscaler.kubernetes.io/enable-ds-
// eviction overrides both flags. Before the provider call a node is held
// while it carries a delay-deletion.cluster-autoscaler.kubernetes.io/
// annotation, up to --node-deletion-delay-timeout; then it is tainted
// BeingDeletedByClusterAutoscaler and deleted. The nodes of a zero-or-max
// group taken whole wait for each other and are deleted in one provider
// call, or all given up when one fails (atomic.go). On any failure both
// taints (and the cordon) are removed and the failure is reported with its
// kind and reason. At start, leftover taints of an earlier process are removed.
//
// The actuator reaches the cluster through Cluster, a narrow interface with
// two implementations: Kube (client-go, for live clusters) and, for unit
// tests only, memcluster, which stands in for the API server and enforces
// PodDisruptionBudgets the way the eviction API does. The offline world
// (internal/offline) implements it for `kscale simulate`.
package actuation
