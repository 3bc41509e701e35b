// Package memcluster is an in-memory actuation.Cluster for unit tests only:
// it stands in for the API server, refusing evictions the way the eviction
// API does when a PodDisruptionBudget allows no disruption, and checking the
// UID precondition. Live clusters use actuation.Kube.
package memcluster
