// Package machineapi holds what the providers built on a Kubernetes
// machine API (Cluster API, Gardener's machine-controller-manager) share:
// the view of node groups one Refresh read, placeholder instances for
// replicas without a machine, decoding of unstructured fields, merge
// patches guarded by a resourceVersion and replica changes that start over
// from a fresh read on a conflict.
package machineapi
