package mcm

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/machineapi"
)

// deployments is the API of the control namespace's MachineDeployments.
// Gardener's RBAC grants patch on machinedeployments, not on their scale
// subresource, so replicas are patched on the object itself.
func (p *Provider) deployments() dynamic.ResourceInterface {
	return p.cfg.Client.Resource(MachineDeployments).Namespace(p.cfg.Namespace)
}

// IncreaseSize raises the MachineDeployment's replicas by delta.
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
// it refuses during a rollout and below the Machines that exist and are
// not being deleted (MCM then removes Machines that are not up first).
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
	if g.ng.ScaleDownBlocked != "" {
		return fmt.Errorf("decreasing node group %q: %s", groupID, g.ng.ScaleDownBlocked)
	}
	exist := 0
	for _, m := range g.machines {
		if !m.deleting {
			exist++
		}
	}
	return p.resize(ctx, "DecreaseTargetSize", g, machineapi.ShrinkBy(&g.ng, delta, exist))
}

// resize sets replicas to next(current) on a fresh read, retrying
// conflicts; a *cloudprovider.SizeError from next is returned as it is,
// other errors as an APIError of op.
func (p *Provider) resize(ctx context.Context, op string, g *group, next func(int) (int, error)) error {
	target, err := machineapi.Resize(ctx, p.deployments(), g.spec.Name, next)
	if err != nil {
		if cloudprovider.IsSizeError(err) {
			return err
		}
		return &cloudprovider.APIError{Op: op, Group: g.ng.ID, Err: fmt.Errorf("MachineDeployment %s/%s: %w", p.cfg.Namespace, g.spec.Name, err)}
	}
	g.ng.TargetSize = target
	return nil
}

// DeleteInstances removes the chosen Machines: in one update of the
// MachineDeployment it lowers replicas by their number and lists them in
// MCM's trigger-deletion annotation (with the replica-change time), so
// MCM marks them priority 1 and deletes exactly those; then it marks them
// priority 1 itself (see markMachines). Placeholders and
// failed Machines only lower replicas (MCM deletes failed Machines
// first); Machines being deleted are skipped. A preserved Machine or a
// rollout refuses the whole call, changing nothing.
//
// The Machines are read afresh first: the view is as old as the loop, and
// MCM's MachineSet deletes stale and failed Machines on its own and, while
// its replicas lag the MachineDeployment's, launches replacements that it
// removes again once they catch up. A victim MCM is already deleting is
// skipped, and one of Machines beyond the replicas (which MCM removes
// anyway) lowers nothing: lowering replicas for it would make MCM remove
// a healthy Machine in its place.
func (p *Provider) DeleteInstances(ctx context.Context, groupID string, instanceIDs []string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	g, err := p.view.Lookup(groupID)
	if err != nil {
		return err
	}
	fresh, err := p.freshMachines(ctx, g)
	if err != nil {
		return err
	}
	marked, unmarked, err := victims(g, fresh, instanceIDs)
	if err != nil {
		return err
	}
	if len(marked)+unmarked == 0 {
		return nil
	}
	if g.ng.ScaleDownBlocked != "" {
		return fmt.Errorf("deleting instances of node group %q: %s", groupID, g.ng.ScaleDownBlocked)
	}
	now := p.cfg.Clock.Now().UTC().Format(time.RFC3339)
	var target int
	err = machineapi.PatchFresh(ctx, p.deployments(), g.spec.Name, func(md *unstructured.Unstructured) (map[string]any, error) {
		cur, err := machineapi.ReplicasOf(md)
		if err != nil {
			return nil, err
		}
		entries, listed := triggerEntries(md.GetAnnotations()[TriggerDeletionAnnotation])
		var add []string
		for _, m := range marked {
			if !listed[m] {
				add = append(add, m)
			}
		}
		target = deleteTarget(cur, len(add)+unmarked, aliveUnlisted(fresh, listed))
		if target < g.ng.MinSize {
			return nil, &cloudprovider.SizeError{Group: groupID, Requested: target, Limit: g.ng.MinSize, Bound: cloudprovider.BoundBelowMin}
		}
		slices.Sort(add)
		for _, m := range add {
			entries = append(entries, m+"~"+now)
		}
		ann := map[string]any{ReplicaChangeAnnotation: now}
		if len(entries) > 0 {
			ann[TriggerDeletionAnnotation] = strings.Join(entries, ",")
		}
		return map[string]any{"metadata": map[string]any{"annotations": ann}, "spec": map[string]any{"replicas": target}}, nil
	})
	switch {
	case cloudprovider.IsSizeError(err):
		return err
	case err != nil:
		return &cloudprovider.APIError{Op: "DeleteInstances", Group: groupID, Err: err}
	}
	g.ng.TargetSize = target
	p.markMachines(ctx, marked, now)
	return nil
}

// markMachines gives the chosen Machines priority 1 and their
// marked-for-deletion time, as MCM's MachineDeployment controller does
// from the annotation; doing it here too makes MCM releases without the
// trigger-deletion annotation (the legacy flow) delete exactly them. The
// annotation already carries the decision, so a failure is only logged.
func (p *Provider) markMachines(ctx context.Context, names []string, now string) {
	api := p.cfg.Client.Resource(Machines).Namespace(p.cfg.Namespace)
	for _, name := range names {
		err := machineapi.MergePatch(ctx, api, name, "", map[string]any{"metadata": map[string]any{"annotations": map[string]any{
			PriorityAnnotation: "1", MarkedForDeletionAnnotation: now}}})
		if err != nil {
			logr.FromContextOrDiscard(ctx).Error(err, "Cannot mark Machine for deletion; MCM marks it from the MachineDeployment's annotation", "machine", name)
		}
	}
}

// freshMachines reads the group's Machines from the API server.
func (p *Provider) freshMachines(ctx context.Context, g *group) (map[string]*machine, error) {
	sel, err := selector(g.md)
	if err != nil {
		return nil, err
	}
	list, err := p.cfg.Client.Resource(Machines).Namespace(p.cfg.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil, &cloudprovider.APIError{Op: "DeleteInstances", Group: g.ng.ID, Err: fmt.Errorf("listing Machines of %s/%s: %w", p.cfg.Namespace, g.spec.Name, err)}
	}
	out := make(map[string]*machine, len(list.Items))
	for i := range list.Items {
		m := newMachine(&list.Items[i])
		out[m.name] = m
	}
	return out, nil
}

// deleteTarget is the replicas after removing n Machines from a
// MachineDeployment at cur whose alive Machines, not listed for deletion
// yet, number alive: n fewer, except that Machines beyond cur (which MCM
// removes anyway, the victims first once listed) lower nothing.
func deleteTarget(cur, n, alive int) int {
	if surplus := alive - cur; surplus > 0 {
		return min(cur, cur-n+surplus)
	}
	return cur - n
}

// aliveUnlisted counts the Machines that are neither being deleted nor
// listed for deletion already: the ones the replicas are meant to keep.
func aliveUnlisted(machines map[string]*machine, listed map[string]bool) int {
	n := 0
	for name, m := range machines {
		if !m.deleting && !listed[name] {
			n++
		}
	}
	return n
}

// victims splits instance ids into Machines to list in the annotation
// and a count of replicas to drop without listing (placeholders, failed
// Machines), judging each by its fresh state; a Machine of the view gone
// since is being deleted, an id of neither is not found.
func victims(g *group, fresh map[string]*machine, ids []string) (marked []string, unmarked int, err error) {
	for _, id := range ids {
		if machineapi.IsPlaceholder(placeholderPrefix, id) {
			unmarked++
			continue
		}
		m, ok := fresh[id]
		_, known := g.machines[id]
		switch {
		case !ok && !known:
			return nil, 0, &cloudprovider.NotFoundError{Kind: "instance", Name: id}
		case !ok || m.deleting:
			continue
		case m.preserved() != "":
			return nil, 0, fmt.Errorf("deleting instances of node group %q: %s", g.ng.ID, m.preserved())
		case m.failed():
			unmarked++
		default:
			marked = append(marked, m.name)
		}
	}
	return marked, unmarked, nil
}

// triggerEntries splits the trigger-deletion annotation into its entries
// and the Machine names they list.
func triggerEntries(v string) ([]string, map[string]bool) {
	listed := map[string]bool{}
	var entries []string
	for _, e := range strings.Split(v, ",") {
		if e == "" {
			continue
		}
		entries = append(entries, e)
		name, _, _ := strings.Cut(e, "~")
		listed[name] = true
	}
	return entries, listed
}
