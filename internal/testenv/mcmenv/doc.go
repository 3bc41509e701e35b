// Package mcmenv runs the real controllers of Gardener's
// machine-controller-manager (github.com/gardener/machine-controller-manager,
// built by `make testbin` from hack/mcm at the version the tests' CRDs come
// from) on a test control cluster, and plays the one part no real
// component can play here: the cloud. MCM's machine controller reaches it
// through a driver of ours (hack/mcm/driver.go, MCM's out-of-tree driver
// interface) that calls the Cloud over HTTP; the Cloud creates instances,
// fails them on request with an MCM machine code, registers their Nodes in
// the target cluster after a boot time (the real kwok controller plays
// their kubelets), and records which instances it released.
//
// Everything between a MachineDeployment's replicas and the driver is
// MCM's own code: MachineDeployment to MachineSet, MachineSet to Machines
// (and its deletion order, the trigger-deletion annotation), Machine to
// Node linking, creation timeouts, draining and Node deletion.
package mcmenv
