package live

import (
	"context"
	"fmt"
	"slices"

	"github.com/kscale/kscale/internal/cloudprovider/registry"
	"github.com/kscale/kscale/internal/nodeautoscaler/expander"
	"github.com/kscale/kscale/internal/nodeautoscaler/expander/grpcexpander"
	"github.com/kscale/kscale/internal/nodeautoscaler/expander/grpcexpander/protos"
	"github.com/kscale/kscale/internal/nodeautoscaler/options"
)

// grpcExpander connects the filter of --expander=grpc for one leader term
// (nil without it); the connection closes when ctx ends.
func grpcExpander(ctx context.Context, o options.Options) (expander.Filter, error) {
	if !slices.Contains(o.Expanders, options.ExpanderGRPC) {
		return nil, nil
	}
	conn, err := grpcexpander.Dial(o.GRPCExpanderURL, o.GRPCExpanderCert)
	if err != nil {
		return nil, err
	}
	context.AfterFunc(ctx, func() { _ = conn.Close() })
	f, err := grpcexpander.New(grpcexpander.Config{Client: protos.NewExpanderClient(conn)})
	if err != nil {
		return nil, fmt.Errorf("building the gRPC expander: %w", err)
	}
	return f, nil
}

// groupDefaults are the global values of the options a node group may
// override, as externalgrpc's GetOptions sends them.
func groupDefaults(o options.Options) registry.GroupDefaults {
	return registry.GroupDefaults{ScaleDownUtilizationThreshold: o.ScaleDown.UtilizationThreshold,
		ScaleDownGPUUtilizationThreshold: o.ScaleDown.GPUUtilizationThreshold, ScaleDownUnneededTime: o.ScaleDown.UnneededTime,
		ScaleDownUnreadyTime: o.ScaleDown.UnreadyTime, MaxNodeProvisionTime: o.MaxNodeProvisionTime,
		IgnoreDaemonSetsUtilization: o.ScaleDown.IgnoreDaemonSetsUtilization}
}
