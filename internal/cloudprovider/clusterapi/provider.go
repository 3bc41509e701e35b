package clusterapi

import (
	"context"
	"fmt"
	"sync"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/machineapi"
)

// Provider is the Cluster API cloud provider. Refresh reads the
// management cluster once per loop; the other reads answer from that view.
type Provider struct {
	cfg   Config
	names Names

	mu    sync.Mutex
	api   *apiResources
	view  *machineapi.View[*group]
	infra *infraResolver
	// ignored remembers the resources whose unsupported annotations were
	// reported, so each is logged once.
	ignored map[string]bool
}

// group is one node group of the current view.
type group struct {
	res       *scalable
	ng        cloudprovider.NodeGroup
	instances []cloudprovider.Instance
	// machines are the group's Machines by instance id; for a MachinePool
	// those whose provider id is in its list.
	machines map[string]*machine
	// byProviderID finds a MachinePool's Machine by provider id.
	byProviderID map[string]*machine
}

// NodeGroup returns the group as reported.
func (g *group) NodeGroup() cloudprovider.NodeGroup { return g.ng }

// InstanceList returns the group's instances.
func (g *group) InstanceList() []cloudprovider.Instance { return g.instances }

var _ cloudprovider.Provider = (*Provider)(nil)

// New returns a provider; nothing is read until the first Refresh.
func New(cfg Config) (*Provider, error) {
	cfg.Default()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Provider{cfg: cfg, names: NamesFor(cfg.Group), view: machineapi.NewView[*group](nil), ignored: map[string]bool{},
		infra: newInfraResolver(cfg.Client, cfg.Discovery)}, nil
}

// NodeGroups lists the groups of the last Refresh, sorted by id.
func (p *Provider) NodeGroups(context.Context) ([]cloudprovider.NodeGroup, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.view.NodeGroups(), nil
}

// Instances lists a group's Machines and placeholders as of the last
// Refresh.
func (p *Provider) Instances(_ context.Context, groupID string) ([]cloudprovider.Instance, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.view.Instances(groupID)
}

// Refresh resolves the API on first use and reads every scalable resource
// and Machine. A resource with bad annotations or fields is logged and
// left out; the others stay node groups.
func (p *Provider) Refresh(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.api == nil {
		api, err := resolveAPI(p.cfg.Discovery, p.cfg.Group, p.cfg.Version)
		if err != nil {
			return &cloudprovider.APIError{Op: "Refresh", Err: err}
		}
		p.api = api
	}
	lists, err := p.list(ctx)
	if err != nil {
		return &cloudprovider.APIError{Op: "Refresh", Err: err}
	}
	var groups []*group
	log := logr.FromContextOrDiscard(ctx)
	for _, r := range p.scalable(lists, log) {
		g, err := p.buildGroup(ctx, r, lists)
		if err != nil {
			log.Error(err, "Skipping Cluster API node group", "group", r.id())
			continue
		}
		if g != nil {
			groups = append(groups, g)
		}
	}
	p.view = machineapi.NewView(groups)
	return nil
}

// lists are the objects of one Refresh.
type lists struct {
	deployments, sets, pools, machines []unstructured.Unstructured
	// nodes are the workload cluster's nodes by provider id.
	nodes map[string]*corev1.Node
	// infra lists infrastructure templates on first use.
	infra *infraTemplates
}

// list reads the scalable resources and Machines in the listed namespace.
func (p *Provider) list(ctx context.Context) (*lists, error) {
	ns := listNamespace(p.cfg.Specs)
	get := func(gvr *schema.GroupVersionResource) ([]unstructured.Unstructured, error) {
		if gvr == nil {
			return nil, nil
		}
		l, err := p.cfg.Client.Resource(*gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, fmt.Errorf("listing %s: %w", gvr.Resource, err)
		}
		return l.Items, nil
	}
	out := lists{infra: &infraTemplates{client: p.cfg.Client, namespace: ns}}
	var err error
	if out.deployments, err = get(p.api.deployments); err != nil {
		return nil, err
	}
	if out.sets, err = get(&p.api.sets); err != nil {
		return nil, err
	}
	if out.pools, err = get(p.api.pools); err != nil {
		return nil, err
	}
	if out.machines, err = get(&p.api.machines); err != nil {
		return nil, err
	}
	nodes, err := p.cfg.Nodes.List(labels.Everything())
	if err != nil {
		return nil, fmt.Errorf("listing nodes: %w", err)
	}
	out.nodes = make(map[string]*corev1.Node, len(nodes))
	for _, n := range nodes {
		if n.Spec.ProviderID != "" {
			out.nodes[n.Spec.ProviderID] = n
		}
	}
	return &out, nil
}

// scalable returns the resources that are node groups candidates: every
// MachineDeployment, MachineSet without a MachineDeployment owner and
// MachinePool that matches a discovery spec and is not paused.
func (p *Provider) scalable(l *lists, log logr.Logger) []*scalable {
	var out []*scalable
	add := func(items []unstructured.Unstructured, kind string, gvr *schema.GroupVersionResource) {
		for i := range items {
			obj := &items[i]
			if kind == machineSetKind && ownedByDeployment(obj) {
				continue
			}
			if _, paused := obj.GetAnnotations()[p.names.Paused]; paused {
				continue
			}
			r, err := newResource(obj, kind, *gvr, p.names)
			if err != nil {
				log.Error(err, "Skipping Cluster API node group", "group", kind+"/"+obj.GetNamespace()+"/"+obj.GetName())
				continue
			}
			if p.selected(r) {
				out = append(out, r)
			}
		}
	}
	if p.api.deployments != nil {
		add(l.deployments, machineDeploymentK, p.api.deployments)
	}
	add(l.sets, machineSetKind, &p.api.sets)
	if p.api.pools != nil {
		add(l.pools, machinePoolKind, p.api.pools)
	}
	return out
}

// selected reports whether any discovery spec (or, with none, the
// default of everything) selects the resource.
func (p *Provider) selected(r *scalable) bool {
	if len(p.cfg.Specs) == 0 {
		return true
	}
	for _, s := range p.cfg.Specs {
		if s.matches(r) {
			return true
		}
	}
	return false
}

// logFrom returns the logger of ctx.
func logFrom(ctx context.Context) logr.Logger { return logr.FromContextOrDiscard(ctx) }

// InstanceKnowledge implements cloudprovider.Provider.
// A listed Machine's instance exists; about any other node the provider
// cannot tell, as upstream's HasInstance fails for a node whose Machine it
// does not find.
func (*Provider) InstanceKnowledge() cloudprovider.InstanceKnowledge {
	return cloudprovider.KnowsListedInstances
}
