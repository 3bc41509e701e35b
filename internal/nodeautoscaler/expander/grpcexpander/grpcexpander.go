// Package grpcexpander is the expander filter of --expander=grpc: it sends
// the scale-up options to a server of the upstream cluster autoscaler's
// gRPC expander protocol (see protos) and keeps the ones it answers, so an
// expander written for upstream serves kscale unchanged.
package grpcexpander

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"k8s.io/klog/v2"

	"github.com/kscale/kscale/internal/nodeautoscaler/expander"
	"github.com/kscale/kscale/internal/nodeautoscaler/expander/grpcexpander/protos"
)

// DefaultTimeout bounds one call (upstream's fixed timeout).
const DefaultTimeout = 5 * time.Second

// maxReceiveBytes is the largest answer accepted (upstream's 128 MiB).
const maxReceiveBytes = 128 << 20

// Dial opens the (lazy) connection to the expander at url over TLS,
// trusting the server certificate (or its CA) in certFile, as upstream's
// --grpc-expander-url and --grpc-expander-cert do; plain text is refused.
func Dial(url, certFile string) (*grpc.ClientConn, error) {
	if url == "" {
		return nil, errors.New("--grpc-expander-url: required with --expander=grpc")
	}
	if certFile == "" {
		return nil, errors.New("--grpc-expander-cert: required with --expander=grpc (the expander is reached over TLS only)")
	}
	creds, err := credentials.NewClientTLSFromFile(certFile, "")
	if err != nil {
		return nil, fmt.Errorf("--grpc-expander-cert: %w", err)
	}
	target := url
	if !strings.Contains(url, "://") {
		// As upstream's grpc.Dial: the address goes to the dialer as it is.
		target = "passthrough:///" + url
	}
	conn, err := grpc.NewClient(target, grpc.WithTransportCredentials(creds),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxReceiveBytes)))
	if err != nil {
		return nil, fmt.Errorf("--grpc-expander-url: %w", err)
	}
	return conn, nil
}

// Config configures a Filter.
type Config struct {
	// Client reaches the expander server. Required.
	Client protos.ExpanderClient
	// Timeout bounds each call; DefaultTimeout when zero.
	Timeout time.Duration
}

// Filter asks the server for the best options. When the call fails or the
// answer names no known option it keeps every option, as upstream does.
type Filter struct {
	cfg Config
}

var _ expander.Filter = (*Filter)(nil)

// New validates the config and returns the filter.
func New(cfg Config) (*Filter, error) {
	if cfg.Client == nil {
		return nil, errors.New("grpc expander: Config.Client is required")
	}
	if cfg.Timeout < 0 {
		return nil, fmt.Errorf("grpc expander: Config.Timeout must not be negative, got %s", cfg.Timeout)
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	return &Filter{cfg: cfg}, nil
}

// BestOptions sends the options, their pods and the groups' template
// nodes, and keeps the options the server returns, in its order.
func (f *Filter) BestOptions(ctx context.Context, opts []expander.Option) []expander.Option {
	log := klog.FromContext(ctx)
	req, err := request(opts)
	if err != nil {
		log.Error(err, "Encoding the options for the gRPC expander failed; keeping every option")
		return opts
	}
	ctx, cancel := context.WithTimeout(ctx, f.cfg.Timeout)
	defer cancel()
	resp, err := f.cfg.Client.BestOptions(ctx, req)
	if err != nil {
		log.Error(err, "gRPC expander call failed; keeping every option")
		return opts
	}
	byGroup := map[string]expander.Option{}
	for _, o := range opts {
		byGroup[o.Group] = o
	}
	var best []expander.Option
	for _, o := range resp.GetOptions() {
		if known, ok := byGroup[o.GetNodeGroupId()]; ok {
			best = append(best, known)
			continue
		}
		log.Info("gRPC expander returned an unknown node group; ignoring it", "nodeGroup", o.GetNodeGroupId())
	}
	if len(best) == 0 {
		log.Info("gRPC expander returned no known option; keeping every option", "options", len(opts))
		return opts
	}
	return best
}

// request encodes the options as the protocol does: pods and template
// nodes in Kubernetes' protobuf encoding, the nodes keyed by group id.
func request(opts []expander.Option) (*protos.BestOptionsRequest, error) {
	req := &protos.BestOptionsRequest{NodeBytesMap: map[string][]byte{}}
	for _, o := range opts {
		m := &protos.Option{NodeGroupId: o.Group, NodeCount: int32(o.NodeCount), Debug: fmt.Sprintf("%s: %d node(s) for %d pod(s)", o.Group, o.NodeCount, len(o.Pods))}
		for _, p := range o.Pods {
			b, err := p.Marshal()
			if err != nil {
				return nil, fmt.Errorf("encoding pod %s/%s: %w", p.Namespace, p.Name, err)
			}
			m.PodBytes = append(m.PodBytes, b)
		}
		req.Options = append(req.Options, m)
		if o.Template != nil {
			b, err := o.Template.Marshal()
			if err != nil {
				return nil, fmt.Errorf("encoding the template node of %s: %w", o.Group, err)
			}
			req.NodeBytesMap[o.Group] = b
		}
	}
	return req, nil
}
