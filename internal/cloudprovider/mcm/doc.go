// Package mcm is the Gardener machine-controller-manager (MCM) cloud
// provider: node groups are MachineDeployments of the control (seed)
// cluster named by --nodes=<min>:<max>:<namespace>.<machinedeployment>,
// their Machines are the groups' instances, and the Nodes live in the
// target (shoot) cluster.
//
// Everything on the control cluster is read and written through
// client-go's dynamic client with unstructured objects of
// machine.sapcloud.io/v1alpha1. A scale-up raises the MachineDeployment's
// spec.replicas; a scale-down lowers it in the same update that lists the
// chosen Machines in MCM's node.machine.sapcloud.io/trigger-deletion-by-mcm
// annotation, so MCM gives exactly those Machines the deletion priority 1
// (machinepriority.machine.sapcloud.io) and removes them first. Templates
// come from the MachineClass's nodeTemplate and the MachineDeployment's
// node template labels and taints.
package mcm
