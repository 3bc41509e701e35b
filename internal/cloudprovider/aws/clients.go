package aws

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/autoscaling"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/eks"
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
	// AWS_ENDPOINT_URL / AWS_ENDPOINT_URL_AUTO_SCALING / AWS_ENDPOINT_URL_EC2 /
	// AWS_ENDPOINT_URL_EKS.
	LoadOptions []func(*config.LoadOptions) error
}

// Clients are the SDK clients the provider uses.
type Clients struct {
	// AutoScaling is the Auto Scaling client.
	AutoScaling *autoscaling.Client
	// EC2 is the EC2 client.
	EC2 *ec2.Client
	// EKS is the EKS client (managed node groups).
	EKS *eks.Client
	// Region is the region the SDK resolved.
	Region string
}

// NewClients loads the SDK's shared configuration and builds the clients
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
	if cfg.HTTPClient == nil || isBuildable(cfg.HTTPClient) {
		cfg.HTTPClient = &http.Client{Transport: bufferedRequests{next: awshttp.NewBuildableClient().GetTransport()}}
	}
	return &Clients{
		AutoScaling: autoscaling.NewFromConfig(cfg),
		EC2:         ec2.NewFromConfig(cfg),
		EKS:         eks.NewFromConfig(cfg),
		Region:      cfg.Region,
	}, nil
}

// bufferedRequests hands the transport a copy of each request body. The
// SDK closes an operation's request body as soon as the response headers
// arrive; when the transport's writer has not finished with it yet, the
// transport closes the connection and the response body being decoded
// fails with "use of closed network connection" (seen with large
// DescribeAutoScalingGroups pages; TestRefreshCallsPerLoop catches it as
// retries). Query-protocol bodies are small form posts, so the copy is
// cheap.
type bufferedRequests struct {
	next http.RoundTripper
}

// RoundTrip sends r with its body read into memory.
func (b bufferedRequests) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return b.next.RoundTrip(r)
	}
	data, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, fmt.Errorf("reading request body: %w", err)
	}
	if err := r.Body.Close(); err != nil {
		return nil, fmt.Errorf("closing request body: %w", err)
	}
	r = r.Clone(r.Context())
	r.Body = io.NopCloser(bytes.NewReader(data))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	r.ContentLength = int64(len(data))
	return b.next.RoundTrip(r)
}

func isBuildable(c awssdk.HTTPClient) bool {
	_, ok := c.(*awshttp.BuildableClient)
	return ok
}

// ensure the SDK clients satisfy the provider's interfaces.
var (
	_ AutoScalingAPI = (*autoscaling.Client)(nil)
	_ EC2API         = (*ec2.Client)(nil)
	_ EKSAPI         = (*eks.Client)(nil)
)
