package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/kscale/kscale/internal/cloudprovider/aws"
	"github.com/kscale/kscale/internal/cloudprovider/nodegroupspec"
)

// awsFlags are the flags only --cloud-provider=aws reads.
type awsFlags struct {
	staticInstanceList bool
	refreshInterval    time.Duration
	upstreamActivities bool
}

// addFlags registers the AWS flags.
func (a *awsFlags) addFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&a.staticInstanceList, "aws-use-static-instance-list", false,
		"AWS: use the built-in instance type table instead of calling DescribeInstanceTypes at start.")
	fs.DurationVar(&a.refreshInterval, "aws-refresh-interval", aws.DefaultRefreshInterval,
		"AWS: how long the described Auto Scaling groups and their instances are reused between loops; 0 describes them every loop, as --disable-node-instances-cache does.")
	fs.BoolVar(&a.upstreamActivities, "aws-upstream-scaling-activities", false,
		"AWS: fail a short group's placeholders as upstream does: only on a Failed scaling activity since the last SetDesiredCapacity, always as out-of-resources; false also takes Cancelled ones and classes them by message.")
}

// awsCloud builds the AWS Auto Scaling group provider: node groups from
// --nodes and asg:tag= auto-discovery, clients from the SDK's standard
// configuration (AWS_REGION, credentials chain including IRSA,
// AWS_ENDPOINT_URL, AWS_MAX_ATTEMPTS).
type awsCloud struct {
	static    []nodegroupspec.Static
	discovery []aws.Discovery
	flags     awsFlags
}

// complete parses the node group flags; --cloud-config has no meaning for
// AWS (endpoints and credentials come from the SDK's settings).
func (a *awsCloud) complete(f *cloudFlags) error {
	if f.config != "" {
		return errors.New("--cloud-config: not supported by --cloud-provider=aws; the SDK's settings (AWS_REGION, AWS_ENDPOINT_URL, AWS_PROFILE, ...) configure it")
	}
	var err error
	if a.static, err = nodegroupspec.ParseStaticList(f.nodes); err != nil {
		return fmt.Errorf("--nodes: %w", err)
	}
	for _, s := range f.autoDiscovery {
		d, err := aws.ParseDiscovery(s)
		if err != nil {
			return fmt.Errorf("--node-group-auto-discovery: %w", err)
		}
		a.discovery = append(a.discovery, d)
	}
	if len(a.static) == 0 && len(a.discovery) == 0 {
		return errors.New("--nodes or --node-group-auto-discovery: the aws provider needs at least one")
	}
	a.flags = f.aws
	if a.flags.refreshInterval < 0 {
		return fmt.Errorf("--aws-refresh-interval: must not be negative, got %v", a.flags.refreshInterval)
	}
	return nil
}

// build loads the SDK configuration and returns the provider; it has no
// background tasks.
func (a *awsCloud) build(ctx context.Context, deps cloudDeps) (*cloud, error) {
	clients, err := aws.NewClients(ctx, aws.ClientConfig{Registerer: deps.Registerer})
	if err != nil {
		return nil, err
	}
	interval := a.flags.refreshInterval
	if deps.DisableInstanceCache {
		interval = 0
	}
	p, err := aws.New(aws.Config{AutoScaling: clients.AutoScaling, EC2: clients.EC2, EKS: clients.EKS, Region: clients.Region, Static: a.static,
		Discovery: a.discovery, Clock: deps.Clock, RefreshInterval: interval, StaticInstanceList: a.flags.staticInstanceList,
		UpstreamScalingActivities: a.flags.upstreamActivities})
	if err != nil {
		return nil, err
	}
	return &cloud{provider: p}, nil
}
