package clusterapi

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kscale/kscale/internal/cloudprovider"
)

// buildGroup turns a scalable resource into a node group with its
// instances and template; nil when its max size is 0 (no node group).
func (p *Provider) buildGroup(ctx context.Context, r *scalable, l *lists) (*group, error) {
	minSize, maxSize, err := r.bounds(p.names)
	if err != nil || maxSize == 0 {
		return nil, err
	}
	g := &group{res: r, machines: map[string]*machine{}, byProviderID: map[string]*machine{},
		ng: cloudprovider.NodeGroup{ID: r.id(), MinSize: minSize, MaxSize: maxSize, TargetSize: r.replicas}}
	g.ng.Options, g.ng.OptionsInvalid = r.options(p.names)
	p.reportIgnored(ctx, r)
	if r.kind == machinePoolKind {
		p.poolInstances(g, l)
	} else if err := p.machineInstances(g, l); err != nil {
		return nil, err
	}
	if g.ng.Template, err = p.template(ctx, r, liveNode(g, l.nodes), l.infra); err != nil {
		return nil, err
	}
	if r.kind == machineDeploymentK {
		g.ng.ScaleDownBlocked = rollout(r, l.sets, p.names)
	}
	return g, nil
}

// machineInstances adds the Machines a MachineDeployment's or
// MachineSet's selector matches (same namespace and cluster) and a
// placeholder per replica without a live Machine.
func (p *Provider) machineInstances(g *group, l *lists) error {
	sel, err := g.res.selector()
	if err != nil {
		return err
	}
	alive := 0
	for i := range l.machines {
		obj := &l.machines[i]
		if obj.GetNamespace() != g.res.namespace || !sel.Matches(labels.Set(obj.GetLabels())) {
			continue
		}
		m := newMachine(obj, p.names)
		if g.res.clusterName != "" && m.clusterName != g.res.clusterName {
			continue
		}
		g.machines[m.id()] = m
		g.instances = append(g.instances, p.machineInstance(m))
		if !m.deleting {
			alive++
		}
	}
	slices.SortFunc(g.instances, func(a, b cloudprovider.Instance) int { return strings.Compare(a.ID, b.ID) })
	g.instances = append(g.instances, placeholders(g.ng.ID, g.res.replicas, alive)...)
	return nil
}

// poolInstances adds a MachinePool's spec.providerIDList entries (running
// instances whose id is the provider id) and placeholders for replicas
// beyond them. Machines of the pool (some infrastructure providers create
// them) are remembered for the delete-machine annotation.
func (p *Provider) poolInstances(g *group, l *lists) {
	ids, _, _ := unstructured.NestedStringSlice(g.res.obj.Object, "spec", "providerIDList")
	for i := range l.machines {
		obj := &l.machines[i]
		if obj.GetNamespace() != g.res.namespace {
			continue
		}
		m := newMachine(obj, p.names)
		if m.providerID != "" && slices.Contains(ids, m.providerID) {
			g.byProviderID[m.providerID] = m
		}
	}
	for _, id := range ids {
		inst := cloudprovider.Instance{ID: id, ProviderID: id, State: cloudprovider.InstanceRunning}
		if m, ok := g.byProviderID[id]; ok && m.deleting {
			inst.State = cloudprovider.InstanceDeleting
		}
		g.instances = append(g.instances, inst)
	}
	g.instances = append(g.instances, placeholders(g.ng.ID, g.res.replicas, len(ids))...)
}

// liveNode returns a registered node of the group, if any: the template
// takes its instance type, zone and region from it.
func liveNode(g *group, nodes map[string]*corev1.Node) *corev1.Node {
	for _, inst := range g.instances {
		if n, ok := nodes[inst.ProviderID]; ok && !inst.Placeholder && inst.State == cloudprovider.InstanceRunning {
			return n
		}
	}
	return nil
}

// rollout returns why a MachineDeployment's nodes must not be removed:
// a MachineSet of an older revision still has replicas, so Cluster API is
// rolling it out and would fight a scale-down.
func rollout(r *scalable, sets []unstructured.Unstructured, n Names) string {
	type rev struct {
		name     string
		revision int
		replicas int64
	}
	var revs []rev
	for i := range sets {
		s := &sets[i]
		if s.GetNamespace() != r.namespace || s.GetLabels()[n.DeploymentName] != r.name {
			continue
		}
		v, err := strconv.Atoi(s.GetAnnotations()[RevisionAnnotation])
		if err != nil {
			continue
		}
		spec, _, _ := unstructured.NestedInt64(s.Object, "spec", "replicas")
		status, _, _ := unstructured.NestedInt64(s.Object, "status", "replicas")
		revs = append(revs, rev{name: s.GetName(), revision: v, replicas: max(spec, status)})
	}
	newest := 0
	for _, v := range revs {
		newest = max(newest, v.revision)
	}
	for _, v := range revs {
		if v.revision < newest && v.replicas > 0 {
			return fmt.Sprintf("MachineDeployment %s/%s is rolling out: MachineSet %s of revision %d still has replicas", r.namespace, r.name, v.name, v.revision)
		}
	}
	return ""
}
