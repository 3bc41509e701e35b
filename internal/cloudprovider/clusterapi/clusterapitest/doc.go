// Package clusterapitest is test support for the Cluster API provider:
// the real CAPI CRDs from the sigs.k8s.io/cluster-api Go module, a small
// infrastructure-template CRD (the CAPI test infrastructure CRDs are not in
// that module), the Cluster API Flavor of the machinesim stand-in
// controller, and builders of v1beta2 objects.
package clusterapitest
