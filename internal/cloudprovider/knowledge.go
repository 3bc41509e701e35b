package cloudprovider

import "fmt"

// InstanceKnowledge is what a provider can tell about whether the cloud
// instance behind a node still exists: the answer upstream's
// CloudProvider.HasInstance gives for the same cloud. The node autoscaler
// reads it with --deleted-nodes-from-cloud-instances, upstream's rule for
// which nodes count as deleted.
type InstanceKnowledge int

// Instance knowledge values.
const (
	// KnowsListedInstances means a node whose provider ID is among the
	// instances the provider lists (in any state, deleting included) has
	// an instance, and the provider cannot tell about any other node, as
	// upstream's aws and clusterapi providers answer (HasInstance fails
	// for a node whose instance or Machine they do not find).
	KnowsListedInstances InstanceKnowledge = iota
	// AssumesInstancesExist means the provider reports every node's
	// instance as existing, as upstream's kwok provider does.
	AssumesInstancesExist
	// CannotTellInstances means the provider cannot tell for any node, as
	// upstream's externalgrpc provider and Gardener's mcm provider answer
	// (HasInstance is not implemented).
	CannotTellInstances
)

// String names the value as docs/node-autoscaler.md does.
func (k InstanceKnowledge) String() string {
	switch k {
	case KnowsListedInstances:
		return "knows-listed-instances"
	case AssumesInstancesExist:
		return "assumes-instances-exist"
	case CannotTellInstances:
		return "cannot-tell-instances"
	}
	return fmt.Sprintf("InstanceKnowledge(%d)", int(k))
}

// Valid reports whether k is one of the defined values.
func (k InstanceKnowledge) Valid() bool {
	return k >= KnowsListedInstances && k <= CannotTellInstances
}

// Vouches reports whether the provider vouches for the cloud instance of
// a node, given whether the node's provider ID is among the listed
// instances.
func (k InstanceKnowledge) Vouches(listed bool) bool {
	switch k {
	case KnowsListedInstances:
		return listed
	case AssumesInstancesExist:
		return true
	}
	return false
}
