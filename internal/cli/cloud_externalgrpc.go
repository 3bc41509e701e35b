package cli

import (
	"context"
	"errors"
	"fmt"
	"os"

	"k8s.io/klog/v2"

	"github.com/kscale/kscale/internal/cloudprovider/externalgrpc"
	"github.com/kscale/kscale/internal/cloudprovider/externalgrpc/protos"
	"github.com/kscale/kscale/internal/nodeautoscaler/options"
)

// externalGRPCCloud builds the external gRPC provider: a client of a
// server of upstream's externalgrpc protocol that --cloud-config names.
type externalGRPCCloud struct {
	config *externalgrpc.CloudConfig
}

// complete reads --cloud-config; the server names the node groups, so
// --nodes and auto-discovery have no meaning.
func (e *externalGRPCCloud) complete(f *cloudFlags) error {
	switch {
	case len(f.nodes) > 0:
		return errors.New("--nodes: not supported by --cloud-provider=externalgrpc; the external server names the node groups")
	case len(f.autoDiscovery) > 0:
		return errors.New("--node-group-auto-discovery: not supported by --cloud-provider=externalgrpc; the external server names the node groups")
	case f.config == "":
		return errors.New("--cloud-config: required for the externalgrpc provider (the server's address, TLS files and timeout)")
	}
	data, err := os.ReadFile(f.config)
	if err != nil {
		return fmt.Errorf("--cloud-config: %w", err)
	}
	if e.config, err = externalgrpc.ParseCloudConfig(data); err != nil {
		return fmt.Errorf("--cloud-config %s: %w", f.config, err)
	}
	return nil
}

// build connects to the server (the TLS files are read now) and asks it
// for its GPU label; closing the connection and Cleanup run when the
// leader term ends.
func (e *externalGRPCCloud) build(ctx context.Context, deps cloudDeps) (*cloud, error) {
	conn, err := externalgrpc.Dial(e.config)
	if err != nil {
		return nil, fmt.Errorf("--cloud-config: %w", err)
	}
	p, err := externalgrpc.New(externalgrpc.Config{Client: protos.NewCloudProviderClient(conn), Timeout: e.config.Timeout(),
		Nodes: deps.Factory.Core().V1().Nodes().Lister(), Defaults: deps.GroupDefaults})
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
	return &cloud{provider: p, gpuLabel: label, tasks: []func(context.Context) error{closer}}, nil
}

// groupDefaults are the global values of the options a node group may
// override, as externalgrpc's GetOptions sends them.
func groupDefaults(o options.Options) externalgrpc.Defaults {
	return externalgrpc.Defaults{ScaleDownUtilizationThreshold: o.ScaleDown.UtilizationThreshold,
		ScaleDownGPUUtilizationThreshold: o.ScaleDown.GPUUtilizationThreshold, ScaleDownUnneededTime: o.ScaleDown.UnneededTime,
		ScaleDownUnreadyTime: o.ScaleDown.UnreadyTime, MaxNodeProvisionTime: o.MaxNodeProvisionTime,
		IgnoreDaemonSetsUtilization: o.ScaleDown.IgnoreDaemonSetsUtilization}
}
