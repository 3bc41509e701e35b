// Package machineapi holds what the providers built on a Kubernetes
// machine API (Cluster API, Gardener's machine-controller-manager) share:
// placeholder instances for replicas without a machine, decoding of
// unstructured fields, and merge patches guarded by a resourceVersion.
package machineapi
