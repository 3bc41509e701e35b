package aws

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/kscale/kscale/internal/cloudprovider/nodegroupspec"
	"github.com/kscale/kscale/internal/cloudprovider/registry"
)

// Builder builds the AWS Auto Scaling group provider for
// --cloud-provider=aws: node groups from --nodes and asg:tag=
// auto-discovery, clients from the SDK's standard configuration
// (AWS_REGION, credentials chain including IRSA, AWS_ENDPOINT_URL,
// AWS_MAX_ATTEMPTS).
type Builder struct {
	staticInstanceList bool
	refreshInterval    time.Duration
	upstreamActivities bool
	static             []nodegroupspec.Static
	discovery          []Discovery
}

// NewBuilder returns the AWS provider's Builder.
func NewBuilder() registry.Builder { return &Builder{} }

// AddFlags registers the flags only --cloud-provider=aws reads.
func (b *Builder) AddFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&b.staticInstanceList, "aws-use-static-instance-list", false,
		"AWS: use the built-in instance type table instead of calling DescribeInstanceTypes at start.")
	fs.DurationVar(&b.refreshInterval, "aws-refresh-interval", DefaultRefreshInterval,
		"AWS: how long the described Auto Scaling groups and their instances are reused between loops; 0 describes them every loop, as --disable-node-instances-cache does.")
	fs.BoolVar(&b.upstreamActivities, "aws-upstream-scaling-activities", false,
		"AWS: fail a short group's placeholders as upstream does: only on a Failed scaling activity since the last SetDesiredCapacity, always as out-of-resources; false also takes Cancelled ones and classes them by message.")
}

// Unselected accepts the AWS flags under another provider, as upstream.
func (b *Builder) Unselected(string) error { return nil }

// Complete parses the node group flags; --cloud-config has no meaning for
// AWS (endpoints and credentials come from the SDK's settings).
func (b *Builder) Complete(c registry.Common) error {
	if c.Config != "" {
		return errors.New("--cloud-config: not supported by --cloud-provider=aws; the SDK's settings (AWS_REGION, AWS_ENDPOINT_URL, AWS_PROFILE, ...) configure it")
	}
	var err error
	if b.static, err = nodegroupspec.ParseStaticList(c.Nodes); err != nil {
		return fmt.Errorf("--nodes: %w", err)
	}
	for _, s := range c.AutoDiscovery {
		d, err := ParseDiscovery(s)
		if err != nil {
			return fmt.Errorf("--node-group-auto-discovery: %w", err)
		}
		b.discovery = append(b.discovery, d)
	}
	if len(b.static) == 0 && len(b.discovery) == 0 {
		return errors.New("--nodes or --node-group-auto-discovery: the aws provider needs at least one")
	}
	if b.refreshInterval < 0 {
		return fmt.Errorf("--aws-refresh-interval: must not be negative, got %v", b.refreshInterval)
	}
	return nil
}

// GPULabel returns upstream's AWS GPU node label.
func (b *Builder) GPULabel() string { return GPULabel }

// Build loads the SDK configuration and returns the provider; it has no
// background tasks.
func (b *Builder) Build(ctx context.Context, deps registry.Deps) (*registry.Built, error) {
	clients, err := NewClients(ctx, ClientConfig{Registerer: deps.Registerer})
	if err != nil {
		return nil, err
	}
	interval := b.refreshInterval
	if deps.DisableInstanceCache {
		interval = 0
	}
	p, err := New(Config{AutoScaling: clients.AutoScaling, EC2: clients.EC2, EKS: clients.EKS, Region: clients.Region, Static: b.static,
		Discovery: b.discovery, Clock: deps.Clock, RefreshInterval: interval, StaticInstanceList: b.staticInstanceList,
		UpstreamScalingActivities: b.upstreamActivities})
	if err != nil {
		return nil, err
	}
	return &registry.Built{Provider: p}, nil
}

// UpstreamAddsKubeProxy marks the provider as one whose upstream adds a
// fake kube-proxy pod to its templates (--template-kube-proxy-pod).
func (b *Builder) UpstreamAddsKubeProxy() {}
