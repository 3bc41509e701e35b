package cli

import (
	"context"
	"fmt"
	"slices"

	"github.com/kscale/kscale/internal/nodeautoscaler/expander"
	"github.com/kscale/kscale/internal/nodeautoscaler/expander/grpcexpander"
	"github.com/kscale/kscale/internal/nodeautoscaler/expander/grpcexpander/protos"
	"github.com/kscale/kscale/internal/nodeautoscaler/options"
)

// grpcExpander connects the filter of --expander=grpc for one leader term
// (nil without it); the connection closes when ctx ends.
func (o *nodeAutoscalerOptions) grpcExpander(ctx context.Context) (expander.Filter, error) {
	if !slices.Contains(o.opts.Expanders, options.ExpanderGRPC) {
		return nil, nil
	}
	conn, err := grpcexpander.Dial(o.opts.GRPCExpanderURL, o.opts.GRPCExpanderCert)
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
