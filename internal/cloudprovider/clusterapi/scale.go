package clusterapi

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/machineapi"
)

// scaleSubresource is the subresource every scalable resource serves.
const scaleSubresource = "scale"

// scaleAPI is the scalable resource's API (namespace included).
func (p *Provider) scaleAPI(r *scalable) dynamic.ResourceInterface {
	return p.cfg.Client.Resource(r.gvr).Namespace(r.namespace)
}

// resize sets a group's replicas to next(current) through its scale
// subresource, read fresh and retried on conflicts; a
// *cloudprovider.SizeError from next is returned as it is, other errors
// as an APIError of op.
func (p *Provider) resize(ctx context.Context, op string, g *group, next func(int) (int, error)) error {
	target, err := machineapi.Resize(ctx, p.scaleAPI(g.res), g.res.name, next, scaleSubresource)
	if err != nil {
		if cloudprovider.IsSizeError(err) {
			return err
		}
		return &cloudprovider.APIError{Op: op, Group: g.ng.ID, Err: fmt.Errorf("setting the replicas of %s: %w", g.res.id(), err)}
	}
	g.res.replicas = target
	return nil
}

// IncreaseSize raises the group's replicas by delta, read fresh from the
// scale subresource.
func (p *Provider) IncreaseSize(ctx context.Context, groupID string, delta int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := machineapi.CheckDelta("increasing", groupID, delta); err != nil {
		return err
	}
	g, err := p.view.Lookup(groupID)
	if err != nil {
		return err
	}
	return p.resize(ctx, "IncreaseSize", g, machineapi.GrowBy(&g.ng, delta))
}

// DecreaseTargetSize lowers replicas by delta without choosing a victim;
// it refuses to drop below the Machines (or MachinePool instances) that
// exist and are not being deleted.
func (p *Provider) DecreaseTargetSize(ctx context.Context, groupID string, delta int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := machineapi.CheckDelta("decreasing", groupID, delta); err != nil {
		return err
	}
	g, err := p.view.Lookup(groupID)
	if err != nil {
		return err
	}
	exist := 0
	for _, inst := range g.instances {
		if !inst.Placeholder && inst.State != cloudprovider.InstanceDeleting {
			exist++
		}
	}
	return p.resize(ctx, "DecreaseTargetSize", g, machineapi.ShrinkBy(&g.ng, delta, exist))
}

// DeleteInstances marks each chosen Machine with the delete-machine
// annotation and then lowers replicas by the number of Machines marked
// and placeholders given, so Cluster API removes exactly those machines.
// Machines already being deleted are skipped. When lowering replicas
// fails, the annotations are removed again.
func (p *Provider) DeleteInstances(ctx context.Context, groupID string, instanceIDs []string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	g, err := p.view.Lookup(groupID)
	if err != nil {
		return err
	}
	victims, placeholders, err := p.victims(g, instanceIDs)
	if err != nil {
		return err
	}
	n := len(victims) + placeholders
	if n == 0 {
		return nil
	}
	next := func(cur int) (int, error) {
		if cur-n < g.ng.MinSize {
			return 0, &cloudprovider.SizeError{Group: groupID, Requested: cur - n, Limit: g.ng.MinSize, Bound: cloudprovider.BoundBelowMin}
		}
		return cur - n, nil
	}
	// Check the bound before marking anything; the resize checks again.
	scale, err := p.scaleAPI(g.res).Get(ctx, g.res.name, metav1.GetOptions{}, scaleSubresource)
	if err != nil {
		return &cloudprovider.APIError{Op: "DeleteInstances", Group: groupID, Err: fmt.Errorf("reading the scale of %s: %w", g.res.id(), err)}
	}
	cur, err := machineapi.ReplicasOf(scale)
	if err != nil {
		return &cloudprovider.APIError{Op: "DeleteInstances", Group: groupID, Err: err}
	}
	if _, err := next(cur); err != nil {
		return err
	}
	var marked []*machine
	for _, m := range victims {
		if err := p.markMachine(ctx, m, true); err != nil {
			p.unmark(ctx, marked)
			return &cloudprovider.APIError{Op: "DeleteInstances", Group: groupID, Err: err}
		}
		marked = append(marked, m)
	}
	if err := p.resize(ctx, "DeleteInstances", g, next); err != nil {
		p.unmark(ctx, marked)
		return err
	}
	return nil
}

// victims resolves instance ids to the group's Machines (not yet being
// deleted) and counts placeholders. A MachinePool instance without a
// Machine counts like a placeholder: the pool picks the victim.
func (p *Provider) victims(g *group, ids []string) ([]*machine, int, error) {
	var out []*machine
	placeholders := 0
	for _, id := range ids {
		if machineapi.IsPlaceholder(SyntheticPrefix, id) {
			placeholders++
			continue
		}
		m, ok := g.machines[id]
		if !ok {
			m, ok = g.byProviderID[id]
		}
		switch {
		case ok && m.deleting:
			continue
		case ok:
			out = append(out, m)
		case g.res.kind == machinePoolKind && containsInstance(g.instances, id):
			placeholders++
		default:
			return nil, 0, &cloudprovider.NotFoundError{Kind: "instance", Name: id}
		}
	}
	return out, placeholders, nil
}

func containsInstance(insts []cloudprovider.Instance, id string) bool {
	for _, i := range insts {
		if i.ID == id {
			return true
		}
	}
	return false
}

// markMachine sets (or removes) the delete-machine annotation with a JSON
// merge patch of the Machine's metadata.
func (p *Provider) markMachine(ctx context.Context, m *machine, mark bool) error {
	var value any
	if mark {
		value = p.cfg.Clock.Now().UTC().Format("2006-01-02T15:04:05Z")
	}
	if err := machineapi.MergePatch(ctx, p.cfg.Client.Resource(p.api.machines).Namespace(m.namespace), m.name, "",
		map[string]any{"metadata": map[string]any{"annotations": map[string]any{p.names.DeleteMachine: value}}}); err != nil {
		return fmt.Errorf("annotating Machine %s with %s: %w", m.id(), p.names.DeleteMachine, err)
	}
	return nil
}

// unmark removes the annotation from machines after a failed scale-down;
// a failure is logged, the original error matters more.
func (p *Provider) unmark(ctx context.Context, ms []*machine) {
	for _, m := range ms {
		if err := p.markMachine(ctx, m, false); err != nil {
			logFrom(ctx).Error(err, "Cannot remove the delete-machine annotation", "machine", m.id())
		}
	}
}
