// Package capienv runs the real Cluster API core controller manager
// (sigs.k8s.io/cluster-api/core, built by `make testbin` from the version
// the tests' CRDs come from) on a test management cluster, with its
// admission webhooks registered with kube-apiserver, and plays the one
// part no real component can play here: the infrastructure provider. The
// stand-in provider's SimMachines become provisioned with a provider id
// after a boot time, and their Nodes register in the workload cluster,
// where the real kwok controller plays their kubelets.
//
// Everything between a MachineDeployment's replicas and a Machine's
// infrastructure object is Cluster API's own code: MachineDeployment to
// MachineSet, MachineSet to Machines (and its deletion order), Machine to
// Node linking, node draining and deletion. The Cluster's control plane
// is a stand-in object that reports itself initialized, so the Machine
// controller watches the workload cluster's Nodes.
package capienv
