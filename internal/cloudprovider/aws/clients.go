package aws

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/autoscaling"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/prometheus/client_golang/prometheus"
)

// ClientConfig configures NewClients.
type ClientConfig struct {
	// Registerer takes the request metrics; nil registers none.
	Registerer prometheus.Registerer
	// LoadOptions are extra options of the SDK's shared configuration
	// loader (tests set retry back-offs); nil uses the SDK's defaults:
	// environment, shared files, web identity (IRSA), container and
	// instance credentials, AWS_REGION, AWS_MAX_ATTEMPTS and
	// AWS_ENDPOINT_URL / AWS_ENDPOINT_URL_AUTO_SCALING / AWS_ENDPOINT_URL_EC2.
	LoadOptions []func(*config.LoadOptions) error
}

// Clients are the SDK clients the provider uses.
type Clients struct {
	// AutoScaling is the Auto Scaling client.
	AutoScaling *autoscaling.Client
	// EC2 is the EC2 client.
	EC2 *ec2.Client
	// Region is the region the SDK resolved.
	Region string
}

// NewClients loads the SDK's shared configuration and builds both clients
// with request metrics. It fails when no region is configured.
func NewClients(ctx context.Context, cc ClientConfig) (*Clients, error) {
	m, err := newRequestMetrics(cc.Registerer)
	if err != nil {
		return nil, fmt.Errorf("registering AWS request metrics: %w", err)
	}
	opts := append([]func(*config.LoadOptions) error{config.WithAppID("kscale")}, cc.LoadOptions...)
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("loading AWS configuration: %w", err)
	}
	if cfg.Region == "" {
		return nil, errors.New("loading AWS configuration: no region; set AWS_REGION or a region in the shared config profile")
	}
	cfg.APIOptions = append(cfg.APIOptions, m.middleware)
	return &Clients{
		AutoScaling: autoscaling.NewFromConfig(cfg),
		EC2:         ec2.NewFromConfig(cfg),
		Region:      cfg.Region,
	}, nil
}

// ensure the SDK clients satisfy the provider's interfaces.
var (
	_ AutoScalingAPI = (*autoscaling.Client)(nil)
	_ EC2API         = (*ec2.Client)(nil)
)
