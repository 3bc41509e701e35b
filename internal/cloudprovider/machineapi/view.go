package machineapi

import (
	"slices"
	"strings"

	"github.com/kscale/kscale/internal/cloudprovider"
)

// Group is what every machine-API provider keeps of one node group: its
// NodeGroup and instances as the last Refresh read them.
type Group interface {
	// NodeGroup returns the group as reported.
	NodeGroup() cloudprovider.NodeGroup
	// InstanceList returns the group's instances, placeholders included.
	InstanceList() []cloudprovider.Instance
}

// View is the node groups one Refresh read, sorted by id. The provider
// replaces it whole on every Refresh; readers answer from it.
type View[G Group] struct {
	groups []G
	byID   map[string]G
}

// NewView sorts groups by id and indexes them.
func NewView[G Group](groups []G) *View[G] {
	slices.SortFunc(groups, func(a, b G) int { return strings.Compare(a.NodeGroup().ID, b.NodeGroup().ID) })
	v := &View[G]{groups: groups, byID: make(map[string]G, len(groups))}
	for _, g := range groups {
		v.byID[g.NodeGroup().ID] = g
	}
	return v
}

// NodeGroups returns the groups in id order.
func (v *View[G]) NodeGroups() []cloudprovider.NodeGroup {
	out := make([]cloudprovider.NodeGroup, 0, len(v.groups))
	for _, g := range v.groups {
		out = append(out, g.NodeGroup())
	}
	return out
}

// Lookup returns a group, or a *cloudprovider.NotFoundError.
func (v *View[G]) Lookup(id string) (G, error) {
	g, ok := v.byID[id]
	if !ok {
		return g, &cloudprovider.NotFoundError{Kind: "node group", Name: id}
	}
	return g, nil
}

// Instances returns a copy of a group's instances.
func (v *View[G]) Instances(id string) ([]cloudprovider.Instance, error) {
	g, err := v.Lookup(id)
	if err != nil {
		return nil, err
	}
	return slices.Clone(g.InstanceList()), nil
}
