package externalgrpc

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/clock"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/externalgrpc/protos"
)

// placeholderPrefix starts the ids of the placeholders the provider makes
// for requested nodes the server lists no instance for yet.
const placeholderPrefix = "externalgrpc:///"

// NodeLister finds the nodes of the cluster, so a deletion names a node as
// upstream does (provider id, name, labels and annotations).
type NodeLister interface {
	List(selector labels.Selector) ([]*corev1.Node, error)
}

// Config configures a Provider.
type Config struct {
	// Client reaches the external server (protos.NewCloudProviderClient
	// over Dial's connection). Required.
	Client protos.CloudProviderClient
	// Timeout bounds every call; DefaultTimeout when zero.
	Timeout time.Duration
	// Nodes, when set, fills the node name, labels and annotations of
	// deleted instances; without it a deletion carries the provider id only.
	Nodes NodeLister
	// Defaults are the global settings sent with NodeGroupGetOptions; a
	// group option equal to its default keeps the global flag.
	Defaults Defaults
	// Prices makes every Refresh ask the price of each group's template
	// node (PricingNodePrice) into Template.PricePerHour: set when the
	// price expander is used, so no call is made for prices nobody reads.
	Prices bool
	// Clock gives the start of the priced period; the real clock when nil.
	Clock clock.PassiveClock
}

// Defaults are the autoscaler's global values of the per-group options.
type Defaults struct {
	// ScaleDownUtilizationThreshold is --scale-down-utilization-threshold.
	ScaleDownUtilizationThreshold float64
	// ScaleDownGPUUtilizationThreshold is --scale-down-gpu-utilization-threshold.
	ScaleDownGPUUtilizationThreshold float64
	// ScaleDownUnneededTime is --scale-down-unneeded-time.
	ScaleDownUnneededTime time.Duration
	// ScaleDownUnreadyTime is --scale-down-unready-time.
	ScaleDownUnreadyTime time.Duration
	// MaxNodeProvisionTime is --max-node-provision-time.
	MaxNodeProvisionTime time.Duration
	// IgnoreDaemonSetsUtilization is --ignore-daemonsets-utilization.
	IgnoreDaemonSetsUtilization bool
}

// Provider implements cloudprovider.Provider over the external gRPC
// protocol. The group list, templates and options are read once per
// Refresh; sizes and instances on every call.
type Provider struct {
	cfg    Config
	groups map[string]*cachedGroup
	order  []string
	gpu    *string

	// priceMu guards prices: the expander may ask pod prices while
	// another goroutine reads the provider.
	priceMu sync.Mutex
	prices  pricing
}

// cachedGroup is what one Refresh learned of a group.
type cachedGroup struct {
	group       *protos.NodeGroup
	template    cloudprovider.Template
	options     cloudprovider.Options
	optsInvalid string
}

var _ cloudprovider.Provider = (*Provider)(nil)

// New validates the config and returns a provider; it makes no call.
func New(cfg Config) (*Provider, error) {
	if cfg.Client == nil {
		return nil, errors.New("externalgrpc: Config.Client is required")
	}
	if cfg.Timeout < 0 {
		return nil, fmt.Errorf("externalgrpc: Config.Timeout must not be negative, got %s", cfg.Timeout)
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	return &Provider{cfg: cfg, prices: pricing{pods: map[string]podPriceResult{}}}, nil
}

// call bounds one call by the configured timeout and types its error.
func call[Req, Resp any](ctx context.Context, p *Provider, op, group string, f func(context.Context, Req, ...grpcCallOption) (Resp, error), req Req) (Resp, error) {
	ctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	resp, err := f(ctx, req)
	if err != nil {
		return resp, callError(op, group, err)
	}
	return resp, nil
}

// Refresh calls the server's Refresh and re-reads the groups, their
// templates, options and (with Config.Prices) prices; the pod prices and
// pricing failures of the previous loop are forgotten.
func (p *Provider) Refresh(ctx context.Context) error {
	p.resetPricing()
	if _, err := call(ctx, p, "Refresh", "", p.cfg.Client.Refresh, &protos.RefreshRequest{}); err != nil {
		return err
	}
	return p.load(ctx)
}

// load reads the group list, each group's template and options.
func (p *Provider) load(ctx context.Context) error {
	resp, err := call(ctx, p, "NodeGroups", "", p.cfg.Client.NodeGroups, &protos.NodeGroupsRequest{})
	if err != nil {
		return err
	}
	groups, order := map[string]*cachedGroup{}, []string(nil)
	for _, g := range resp.GetNodeGroups() {
		if g.GetId() == "" {
			continue
		}
		c := &cachedGroup{group: g}
		if c.template, err = p.template(ctx, g.GetId()); err != nil {
			return err
		}
		if c.options, c.optsInvalid, err = p.options(ctx, g.GetId()); err != nil {
			return err
		}
		groups[g.GetId()] = c
		order = append(order, g.GetId())
	}
	p.groups, p.order = groups, order
	return nil
}

// NodeGroups lists the groups of the last Refresh with their current
// target sizes.
func (p *Provider) NodeGroups(ctx context.Context) ([]cloudprovider.NodeGroup, error) {
	if p.groups == nil {
		if err := p.load(ctx); err != nil {
			return nil, err
		}
	}
	out := make([]cloudprovider.NodeGroup, 0, len(p.order))
	for _, id := range p.order {
		c := p.groups[id]
		target, err := p.targetSize(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, cloudprovider.NodeGroup{ID: id, MinSize: int(c.group.GetMinSize()), MaxSize: int(c.group.GetMaxSize()),
			TargetSize: target, Template: c.template, Options: c.options, OptionsInvalid: c.optsInvalid})
	}
	return out, nil
}

// targetSize reads a group's target size.
func (p *Provider) targetSize(ctx context.Context, id string) (int, error) {
	resp, err := call(ctx, p, "NodeGroupTargetSize", id, p.cfg.Client.NodeGroupTargetSize, &protos.NodeGroupTargetSizeRequest{Id: id})
	if err != nil {
		return 0, err
	}
	return int(resp.GetTargetSize()), nil
}

// group returns a group of the last Refresh.
func (p *Provider) group(ctx context.Context, id string) (*cachedGroup, error) {
	if p.groups == nil {
		if err := p.load(ctx); err != nil {
			return nil, err
		}
	}
	c, ok := p.groups[id]
	if !ok {
		return nil, &cloudprovider.NotFoundError{Kind: "node group", Name: id}
	}
	return c, nil
}

// GPULabel returns the server's GPU label, asked once.
func (p *Provider) GPULabel(ctx context.Context) (string, error) {
	if p.gpu != nil {
		return *p.gpu, nil
	}
	resp, err := call(ctx, p, "GPULabel", "", p.cfg.Client.GPULabel, &protos.GPULabelRequest{})
	if err != nil {
		return "", err
	}
	label := resp.GetLabel()
	p.gpu = &label
	return label, nil
}

// Cleanup tells the server this client is done (upstream calls it when
// the autoscaler stops).
func (p *Provider) Cleanup(ctx context.Context) error {
	_, err := call(ctx, p, "Cleanup", "", p.cfg.Client.Cleanup, &protos.CleanupRequest{})
	return err
}

// InstanceKnowledge implements cloudprovider.Provider.
// The gRPC protocol has no call that tells whether an instance exists;
// upstream's externalgrpc HasInstance is not implemented either.
func (*Provider) InstanceKnowledge() cloudprovider.InstanceKnowledge {
	return cloudprovider.CannotTellInstances
}
