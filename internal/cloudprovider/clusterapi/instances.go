package clusterapi

import (
	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/machineapi"
)

// SyntheticPrefix starts the provider id of a Machine that has none yet,
// and of a placeholder; no node ever carries such an id.
const SyntheticPrefix = "clusterapi:///"

// machineProviderID is the id a Machine's node carries: spec.providerID
// as soon as it is set (Cluster API matches nodes by that exact string),
// else the provider id of the node in status.nodeRef, else a synthetic
// id that stays the same until one of those appears.
func (p *Provider) machineProviderID(m *machine) string {
	if m.providerID != "" {
		return m.providerID
	}
	if m.nodeName != "" {
		if n, err := p.cfg.Nodes.Get(m.nodeName); err == nil && n.Spec.ProviderID != "" {
			return n.Spec.ProviderID
		}
	}
	return SyntheticPrefix + "machine/" + m.namespace + "/" + m.name
}

// machineInstance maps a Machine to an instance: deleting once it has a
// deletion timestamp, creating (with an error when it failed) until its
// nodeRef is set, running after.
func (p *Provider) machineInstance(m *machine) cloudprovider.Instance {
	inst := cloudprovider.Instance{ID: m.id(), ProviderID: p.machineProviderID(m), State: cloudprovider.InstanceCreating}
	switch {
	case m.deleting:
		inst.State = cloudprovider.InstanceDeleting
	case m.nodeName != "":
		inst.State = cloudprovider.InstanceRunning
	default:
		inst.Error = m.failure()
	}
	return inst
}

// placeholders returns one placeholder per replica without a Machine
// that is not being deleted (creation may stall, for example on a
// MachineSet pre-flight check).
func placeholders(groupID string, replicas, live int) []cloudprovider.Instance {
	return machineapi.Placeholders(SyntheticPrefix, groupID, replicas, live)
}

// fromUnstructured converts an unstructured map into a typed value.
func fromUnstructured(raw map[string]any, into any) error {
	return machineapi.FromUnstructured(raw, into)
}
