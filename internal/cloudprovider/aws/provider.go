package aws

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"k8s.io/utils/clock"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/nodegroupspec"
)

// Defaults of Config.
const (
	// DefaultRefreshInterval is how long the ASG list (with its instances)
	// is reused, as upstream's AWS provider does.
	DefaultRefreshInterval = time.Minute
	// DefaultLaunchCacheTTL is how long the instance types of a launch
	// template's $Default or $Latest version are reused.
	DefaultLaunchCacheTTL = 20 * time.Minute
)

// Config configures a Provider.
type Config struct {
	// AutoScaling is the Auto Scaling API; required.
	AutoScaling AutoScalingAPI
	// EC2 is the EC2 API; required.
	EC2 EC2API
	// EKS is the EKS API, read for the ASGs of EKS managed node groups;
	// required.
	EKS EKSAPI
	// Region is the region of the clients, used for the template's region
	// label; required.
	Region string
	// Static are the --nodes groups: min and max narrow the ASG's own.
	Static []nodegroupspec.Static
	// Discovery are the tag auto-discovery specs, ORed.
	Discovery []Discovery
	// Clock drives the refresh interval and cache expiry; default real.
	Clock clock.PassiveClock
	// RefreshInterval is how long the described ASGs and their instances
	// are reused between loops; 0 describes them every loop. A deletion
	// forces the next refresh.
	RefreshInterval time.Duration
	// LaunchCacheTTL bounds the reuse of a launch template version's
	// instance types when the version is $Default or $Latest; numbered
	// versions and launch configurations never change. Default 20m.
	LaunchCacheTTL time.Duration
	// EKSCacheTTL bounds the reuse of an EKS managed node group's labels,
	// taints and tags. Default 6m.
	EKSCacheTTL time.Duration
	// SpotPriceTTL bounds the reuse of the spot prices of a spot group's
	// types. Default 1h.
	SpotPriceTTL time.Duration
	// StaticInstanceList skips DescribeInstanceTypes and uses only the
	// built-in table (--aws-use-static-instance-list).
	StaticInstanceList bool
	// UpstreamScalingActivities is --aws-upstream-scaling-activities: a
	// short group's placeholders fail as upstream 1.36 fails them (only a
	// Failed activity started since the provider's last SetDesiredCapacity
	// of the group counts, always as out-of-resources), instead of kscale's
	// rule (Failed or Cancelled since the newest activity before the first
	// raise, classed by its message).
	UpstreamScalingActivities bool
}

// Default fills unset fields.
func (c *Config) Default() {
	if c.Clock == nil {
		c.Clock = clock.RealClock{}
	}
	if c.LaunchCacheTTL == 0 {
		c.LaunchCacheTTL = DefaultLaunchCacheTTL
	}
	if c.EKSCacheTTL == 0 {
		c.EKSCacheTTL = DefaultEKSCacheTTL
	}
	if c.SpotPriceTTL == 0 {
		c.SpotPriceTTL = DefaultSpotPriceTTL
	}
}

// Validate reports the first invalid field.
func (c *Config) Validate() error {
	switch {
	case c.AutoScaling == nil:
		return errors.New("autoScaling: required")
	case c.EC2 == nil:
		return errors.New("ec2: required")
	case c.EKS == nil:
		return errors.New("eks: required")
	case c.Region == "":
		return errors.New("region: required")
	case len(c.Static) == 0 && len(c.Discovery) == 0:
		return errors.New("no node groups: give --nodes or --node-group-auto-discovery")
	case c.RefreshInterval < 0:
		return errors.New("refreshInterval: must not be negative")
	case c.LaunchCacheTTL < 0:
		return errors.New("launchCacheTTL: must not be negative")
	case c.EKSCacheTTL < 0:
		return errors.New("eksCacheTTL: must not be negative")
	case c.SpotPriceTTL < 0:
		return errors.New("spotPriceTTL: must not be negative")
	}
	return nil
}

// Provider implements cloudprovider.Provider for AWS Auto Scaling groups.
type Provider struct {
	cfg Config

	mu           sync.Mutex
	groups       map[string]*asg // by ASG name, from the last describe
	refreshedAt  time.Time
	stale        bool // a deletion forces the next refresh
	catalogue    *catalogue
	launches     map[string]launchEntry       // instance types by launch source
	overrideReqs map[string]requirementsEntry // InstanceRequirements overrides by group
	selections   map[string]selectionEntry    // attribute-based selections by image and requirements
	nodegroups   map[string]nodegroupEntry    // EKS managed node groups by cluster/name
	spot         map[string]spotEntry         // spot prices by types and zones
	scaleUps     map[string]*scaleUp          // activity tracking of short groups
	lastSet      map[string]time.Time         // when each group's desired capacity was last set, for the upstream rule
	templateErrs map[string]string            // last template error per group, for logging changes
}

var _ cloudprovider.Provider = (*Provider)(nil)

// New validates cfg and returns a provider that has described nothing
// yet; the first Refresh does.
func New(cfg Config) (*Provider, error) {
	cfg.Default()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("configuring the AWS provider: %w", err)
	}
	return &Provider{cfg: cfg, groups: map[string]*asg{}, launches: map[string]launchEntry{}, scaleUps: map[string]*scaleUp{}, lastSet: map[string]time.Time{},
		overrideReqs: map[string]requirementsEntry{}, selections: map[string]selectionEntry{}, nodegroups: map[string]nodegroupEntry{}, spot: map[string]spotEntry{}}, nil
}

// NodeGroups returns the groups of the last refresh, sorted by name. A
// group whose instance types could not be resolved has none, so the
// autoscaler skips its template and still sees its instances.
func (p *Provider) NodeGroups(_ context.Context) ([]cloudprovider.NodeGroup, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]cloudprovider.NodeGroup, 0, len(p.groups))
	for _, g := range p.groups {
		out = append(out, cloudprovider.NodeGroup{ID: g.name, MinSize: g.min, MaxSize: g.max, TargetSize: g.desired,
			Template: cloudprovider.Template{InstanceTypes: slices.Clone(g.types), Zones: slices.Clone(g.zones),
				Region: p.cfg.Region, Tags: maps.Clone(g.templateTags), Taints: slices.Clone(g.taints),
				PricePerHour: g.price},
			Options: g.options, OptionsInvalid: g.optionsInvalid})
	}
	slices.SortFunc(out, func(a, b cloudprovider.NodeGroup) int {
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
	return out, nil
}

// Instances returns the group's instances and one placeholder per unit of
// desired capacity without an instance; placeholders carry the group's
// last failed scaling activity as a creation error.
func (p *Provider) Instances(_ context.Context, groupID string) ([]cloudprovider.Instance, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	g, ok := p.groups[groupID]
	if !ok {
		return nil, &cloudprovider.NotFoundError{Kind: "node group", Name: groupID}
	}
	out := make([]cloudprovider.Instance, 0, max(g.desired, len(g.instances)))
	for _, in := range g.instances {
		out = append(out, cloudprovider.Instance{ID: in.id, ProviderID: providerID(in.zone, in.id), State: in.state})
	}
	var failure *cloudprovider.ErrorInfo
	if s := p.scaleUps[g.name]; s != nil && s.failed != nil {
		failure = s.failed
	}
	for i := g.live(); i < g.desired; i++ {
		id := placeholderID(g.name, i)
		inst := cloudprovider.Instance{ID: id, ProviderID: providerID(g.firstZone(), id), State: cloudprovider.InstanceCreating, Placeholder: true}
		if failure != nil {
			e := *failure
			inst.Error = &e
		}
		out = append(out, inst)
	}
	return out, nil
}

// ProviderIDPrefix starts every AWS node's spec.providerID.
const ProviderIDPrefix = "aws:///"

// placeholderPrefix names placeholders, as upstream does.
const placeholderPrefix = "i-placeholder-"

// providerID is aws:///<zone>/<instance-id>, the kubelet's form.
func providerID(zone, id string) string { return ProviderIDPrefix + zone + "/" + id }

// placeholderID names the placeholder for the i-th unit of desired
// capacity (counting the instances that are not terminating first):
// i-placeholder-<asg>-<i>.
func placeholderID(group string, i int) string {
	return fmt.Sprintf("%s%s-%d", placeholderPrefix, group, i)
}
