package mcm

import (
	"context"
	"errors"
	"fmt"
	"strings"
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

// Provider is the MCM cloud provider. Refresh reads the control cluster
// once per loop; the other reads answer from that view.
type Provider struct {
	cfg Config

	mu     sync.Mutex
	served bool
	view   *machineapi.View[*group]
}

// group is one node group of the current view.
type group struct {
	spec      Group
	md        *unstructured.Unstructured
	ng        cloudprovider.NodeGroup
	instances []cloudprovider.Instance
	// machines are the group's Machines by name (the instance id).
	machines map[string]*machine
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
	return &Provider{cfg: cfg, view: machineapi.NewView[*group](nil)}, nil
}

// NodeGroups lists the groups of the last Refresh, sorted by id; groups
// with a max size of 0 are left out.
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

// ErrAPINotServed reports a control cluster without MCM's API.
var ErrAPINotServed = errors.New("the machine-controller-manager API is not served")

// ErrMCMOffline reports that MCM has no available replica: nothing the
// provider asks for would happen, so the loop halts.
var ErrMCMOffline = errors.New("machine-controller-manager is offline")

// Refresh checks MCM's API (once) and that MCM runs, then reads the
// MachineDeployments, Machines and MachineClasses of the control
// namespace. A MachineDeployment that is missing or malformed is logged
// and left out; the others stay node groups.
func (p *Provider) Refresh(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.served {
		if err := checkAPI(p.cfg.Discovery); err != nil {
			return &cloudprovider.APIError{Op: "Refresh", Err: err}
		}
		p.served = true
	}
	if err := p.checkMCM(ctx); err != nil {
		return &cloudprovider.APIError{Op: "Refresh", Err: err}
	}
	l, err := p.list(ctx)
	if err != nil {
		return &cloudprovider.APIError{Op: "Refresh", Err: err}
	}
	var groups []*group
	log := logr.FromContextOrDiscard(ctx)
	for _, spec := range p.cfg.Groups {
		if spec.Max == 0 {
			continue
		}
		g, err := p.buildGroup(spec, l)
		if err != nil {
			log.Error(err, "Skipping MCM node group", "group", spec.Name)
			continue
		}
		groups = append(groups, g)
	}
	p.view = machineapi.NewView(groups)
	return nil
}

// checkAPI requires machine.sapcloud.io/v1alpha1 with machines,
// machinesets and machinedeployments, as upstream does at start-up.
func checkAPI(dc interface {
	ServerResourcesForGroupVersion(string) (*metav1.APIResourceList, error)
}) error {
	list, err := dc.ServerResourcesForGroupVersion(GroupVersion.String())
	if err != nil {
		return fmt.Errorf("%w: discovering %s (are MCM's CRDs installed?): %w", ErrAPINotServed, GroupVersion, err)
	}
	served := map[string]bool{}
	for _, r := range list.APIResources {
		served[r.Name] = true
	}
	for _, r := range []schema.GroupVersionResource{Machines, MachineSets, MachineDeployments} {
		if !served[r.Resource] {
			return fmt.Errorf("%w: %s does not serve %s", ErrAPINotServed, GroupVersion, r.Resource)
		}
	}
	return nil
}

// checkMCM fails while MCM's Deployment has no available replica.
func (p *Provider) checkMCM(ctx context.Context) error {
	d, err := p.cfg.Client.Resource(Deployments).Namespace(p.cfg.Namespace).Get(ctx, DeploymentName, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("reading Deployment %s/%s: %w", p.cfg.Namespace, DeploymentName, err)
	}
	if n, _, _ := unstructured.NestedInt64(d.Object, "status", "availableReplicas"); n == 0 {
		return fmt.Errorf("%w: Deployment %s/%s has no available replica; scaling is suspended", ErrMCMOffline, p.cfg.Namespace, DeploymentName)
	}
	return nil
}

// lists are the objects of one Refresh.
type lists struct {
	deployments map[string]*unstructured.Unstructured
	classes     map[string]*unstructured.Unstructured
	machines    []unstructured.Unstructured
	nodes       *nodeIndex
}

// list reads the MCM objects of the control namespace and the target
// cluster's nodes.
func (p *Provider) list(ctx context.Context) (*lists, error) {
	get := func(gvr schema.GroupVersionResource) ([]unstructured.Unstructured, error) {
		l, err := p.cfg.Client.Resource(gvr).Namespace(p.cfg.Namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, fmt.Errorf("listing %s in %s: %w", gvr.Resource, p.cfg.Namespace, err)
		}
		return l.Items, nil
	}
	byName := func(items []unstructured.Unstructured) map[string]*unstructured.Unstructured {
		out := make(map[string]*unstructured.Unstructured, len(items))
		for i := range items {
			out[items[i].GetName()] = &items[i]
		}
		return out
	}
	mds, err := get(MachineDeployments)
	if err != nil {
		return nil, err
	}
	classes, err := get(MachineClasses)
	if err != nil {
		return nil, err
	}
	machines, err := get(Machines)
	if err != nil {
		return nil, err
	}
	nodes, err := p.cfg.Nodes.List(labels.Everything())
	if err != nil {
		return nil, fmt.Errorf("listing the target cluster's nodes: %w", err)
	}
	return &lists{deployments: byName(mds), classes: byName(classes), machines: machines, nodes: newNodeIndex(nodes)}, nil
}

// nodeIndex finds target nodes by name and by the last segment of their
// provider id.
type nodeIndex struct {
	byName, bySegment map[string]*corev1.Node
}

func newNodeIndex(nodes []*corev1.Node) *nodeIndex {
	ix := &nodeIndex{byName: map[string]*corev1.Node{}, bySegment: map[string]*corev1.Node{}}
	for _, n := range nodes {
		ix.byName[n.Name] = n
		if s := lastSegment(n.Spec.ProviderID); s != "" {
			ix.bySegment[s] = n
		}
	}
	return ix
}

// lastSegment is the part of a provider id after its last "/": MCM
// drivers may spell the prefix differently from the node (the AWS driver
// writes aws:///<region>/<id>, the node has aws:///<zone>/<id>).
func lastSegment(id string) string {
	if i := strings.LastIndex(id, "/"); i >= 0 {
		return id[i+1:]
	}
	return id
}

// node returns a Machine's node: the one its node label names, else the
// one whose provider id ends like the Machine's.
func (ix *nodeIndex) node(m *machine) *corev1.Node {
	if n, ok := ix.byName[m.nodeName]; ok && m.nodeName != "" {
		return n
	}
	if s := lastSegment(m.providerID); s != "" {
		return ix.bySegment[s]
	}
	return nil
}

// InstanceKnowledge implements cloudprovider.Provider.
// Gardener's mcm provider does not implement HasInstance; kscale answers
// as it does.
func (*Provider) InstanceKnowledge() cloudprovider.InstanceKnowledge {
	return cloudprovider.CannotTellInstances
}
