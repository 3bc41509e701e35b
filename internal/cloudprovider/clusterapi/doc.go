// Package clusterapi is the Cluster API cloud provider: node groups are
// MachineDeployments, MachineSets (not owned by a MachineDeployment) and
// MachinePools of a management cluster that carry the cluster
// autoscaler's min/max size annotations, and their Machines are the
// groups' instances.
//
// Everything is read and written through client-go's dynamic client with
// unstructured objects, so one code path serves the v1beta1 and v1beta2
// APIs and a renamed API group (CAPI_GROUP); the version is the group's
// preferred one from discovery unless CAPI_VERSION forces another. Sizes
// change through the scale subresource; a node chosen for removal has its
// Machine annotated with <group>/delete-machine before replicas drop, so
// Cluster API removes exactly that machine. Templates for scale from zero
// come from the capacity.cluster-autoscaler.kubernetes.io annotations and
// from the infrastructure template's status.capacity.
package clusterapi
