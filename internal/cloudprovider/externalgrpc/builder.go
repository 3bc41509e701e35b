package externalgrpc

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/pflag"
	"k8s.io/klog/v2"

	"github.com/kscale/kscale/internal/cloudprovider/externalgrpc/protos"
	"github.com/kscale/kscale/internal/cloudprovider/registry"
)

// Builder builds the external gRPC provider for
// --cloud-provider=externalgrpc: a client of a server of upstream's
// externalgrpc protocol that --cloud-config names.
type Builder struct {
	config *CloudConfig
}

// NewBuilder returns the external gRPC provider's Builder.
func NewBuilder() registry.Builder { return &Builder{} }

// AddFlags registers nothing: the provider has no flags of its own.
func (b *Builder) AddFlags(*pflag.FlagSet) {}

// Unselected has no flags to check.
func (b *Builder) Unselected(string) error { return nil }

// Complete reads --cloud-config; the server names the node groups, so
// --nodes and auto-discovery have no meaning.
func (b *Builder) Complete(c registry.Common) error {
	data, err := registry.ReadCloudConfig(c, "the external server names the node groups", "the server's address, TLS files and timeout")
	if err != nil {
		return err
	}
	if b.config, err = ParseCloudConfig(data); err != nil {
		return fmt.Errorf("--cloud-config %s: %w", c.Config, err)
	}
	return nil
}

// Build connects to the server (the TLS files are read now) and asks it
// for its GPU label; closing the connection and Cleanup run when the
// leader term ends.
func (b *Builder) Build(ctx context.Context, deps registry.Deps) (*registry.Built, error) {
	conn, err := Dial(b.config)
	if err != nil {
		return nil, fmt.Errorf("--cloud-config: %w", err)
	}
	p, err := New(Config{Client: protos.NewCloudProviderClient(conn), Timeout: b.config.Timeout(),
		Nodes: deps.Factory.Core().V1().Nodes().Lister(), Defaults: Defaults(deps.GroupDefaults),
		Prices: deps.Prices, Clock: deps.Clock})
	if err != nil {
		return nil, errors.Join(err, conn.Close())
	}
	label, err := p.GPULabel(ctx)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("asking the external gRPC cloud provider for its GPU label: %w", err), conn.Close())
	}
	closer := func(ctx context.Context) error {
		<-ctx.Done()
		// The term is over: tell the server with a fresh deadline, as
		// upstream calls Cleanup on shutdown.
		if err := p.Cleanup(context.WithoutCancel(ctx)); err != nil {
			klog.FromContext(ctx).Error(err, "Cleanup call to the external gRPC cloud provider failed")
		}
		if err := conn.Close(); err != nil {
			klog.FromContext(ctx).Error(err, "Closing the connection to the external gRPC cloud provider failed")
		}
		return nil
	}
	return &registry.Built{Provider: p, GPULabel: label, Tasks: []func(context.Context) error{closer}}, nil
}
