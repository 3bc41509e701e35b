package clusterapi

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/machineapi"
)

// scaleSubresource is the subresource every scalable resource serves.
const scaleSubresource = "scale"

// replicas reads a group's replicas and resourceVersion from its scale
// subresource, fresh from the API server.
func (p *Provider) replicas(ctx context.Context, r *scalable) (int, string, error) {
	s, err := p.cfg.Client.Resource(r.gvr).Namespace(r.namespace).Get(ctx, r.name, metav1.GetOptions{}, scaleSubresource)
	if err != nil {
		return 0, "", fmt.Errorf("reading the scale of %s: %w", r.id(), err)
	}
	n, _, err := unstructured.NestedInt64(s.Object, "spec", "replicas")
	if err != nil {
		return 0, "", fmt.Errorf("reading the scale of %s: spec.replicas: %w", r.id(), err)
	}
	return int(n), s.GetResourceVersion(), nil
}

// setReplicas writes replicas through the scale subresource; the
// resourceVersion makes a concurrent change fail with a conflict instead
// of being overwritten.
func (p *Provider) setReplicas(ctx context.Context, r *scalable, replicas int, resourceVersion string) error {
	if err := machineapi.MergePatch(ctx, p.cfg.Client.Resource(r.gvr).Namespace(r.namespace), r.name, resourceVersion,
		map[string]any{"spec": map[string]any{"replicas": replicas}}, scaleSubresource); err != nil {
		return fmt.Errorf("setting the replicas of %s to %d: %w", r.id(), replicas, err)
	}
	return nil
}

// lookup returns a group of the last Refresh.
func (p *Provider) lookup(groupID string) (*group, error) {
	g, ok := p.view.byID[groupID]
	if !ok {
		return nil, &cloudprovider.NotFoundError{Kind: "node group", Name: groupID}
	}
	return g, nil
}

// IncreaseSize raises the group's replicas by delta, read fresh from the
// scale subresource.
func (p *Provider) IncreaseSize(ctx context.Context, groupID string, delta int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if delta <= 0 {
		return fmt.Errorf("increasing node group %q: delta %d is not positive", groupID, delta)
	}
	g, err := p.lookup(groupID)
	if err != nil {
		return err
	}
	cur, rv, err := p.replicas(ctx, g.res)
	if err != nil {
		return &cloudprovider.APIError{Op: "IncreaseSize", Group: groupID, Err: err}
	}
	if cur+delta > g.ng.MaxSize {
		return &cloudprovider.SizeError{Group: groupID, Requested: cur + delta, Limit: g.ng.MaxSize, Reason: "above max size"}
	}
	if err := p.setReplicas(ctx, g.res, cur+delta, rv); err != nil {
		return &cloudprovider.APIError{Op: "IncreaseSize", Group: groupID, Err: err}
	}
	g.res.replicas = cur + delta
	return nil
}

// DecreaseTargetSize lowers replicas by delta without choosing a victim;
// it refuses to drop below the Machines (or MachinePool instances) that
// exist and are not being deleted.
func (p *Provider) DecreaseTargetSize(ctx context.Context, groupID string, delta int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if delta <= 0 {
		return fmt.Errorf("decreasing node group %q: delta %d is not positive", groupID, delta)
	}
	g, err := p.lookup(groupID)
	if err != nil {
		return err
	}
	exist := 0
	for _, inst := range g.instances {
		if !inst.Placeholder && inst.State != cloudprovider.InstanceDeleting {
			exist++
		}
	}
	cur, rv, err := p.replicas(ctx, g.res)
	if err != nil {
		return &cloudprovider.APIError{Op: "DecreaseTargetSize", Group: groupID, Err: err}
	}
	if cur-delta < exist {
		return &cloudprovider.SizeError{Group: groupID, Requested: cur - delta, Limit: exist, Reason: "below existing instances"}
	}
	if err := p.setReplicas(ctx, g.res, cur-delta, rv); err != nil {
		return &cloudprovider.APIError{Op: "DecreaseTargetSize", Group: groupID, Err: err}
	}
	g.res.replicas = cur - delta
	return nil
}

// DeleteInstances marks each chosen Machine with the delete-machine
// annotation and then lowers replicas by the number of Machines marked
// and placeholders given, so Cluster API removes exactly those machines.
// Machines already being deleted are skipped. When lowering replicas
// fails, the annotations are removed again.
func (p *Provider) DeleteInstances(ctx context.Context, groupID string, instanceIDs []string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	g, err := p.lookup(groupID)
	if err != nil {
		return err
	}
	victims, placeholders, err := p.victims(g, instanceIDs)
	if err != nil {
		return err
	}
	if len(victims)+placeholders == 0 {
		return nil
	}
	cur, rv, err := p.replicas(ctx, g.res)
	if err != nil {
		return &cloudprovider.APIError{Op: "DeleteInstances", Group: groupID, Err: err}
	}
	target := cur - len(victims) - placeholders
	if target < g.ng.MinSize {
		return &cloudprovider.SizeError{Group: groupID, Requested: target, Limit: g.ng.MinSize, Reason: "below min size"}
	}
	var marked []*machine
	for _, m := range victims {
		if err := p.markMachine(ctx, m, true); err != nil {
			p.unmark(ctx, marked)
			return &cloudprovider.APIError{Op: "DeleteInstances", Group: groupID, Err: err}
		}
		marked = append(marked, m)
	}
	if err := p.setReplicas(ctx, g.res, target, rv); err != nil {
		p.unmark(ctx, marked)
		return &cloudprovider.APIError{Op: "DeleteInstances", Group: groupID, Err: err}
	}
	g.res.replicas = target
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
