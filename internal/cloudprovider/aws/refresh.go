package aws

import (
	"context"
	"fmt"
	"strings"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/autoscaling"
	astypes "github.com/aws/aws-sdk-go-v2/service/autoscaling/types"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/kscale/kscale/internal/cloudprovider"
)

// pageSize is MaxRecords of DescribeAutoScalingGroups, AWS's maximum.
const pageSize = 100

// asg is one described Auto Scaling group as the provider keeps it.
type asg struct {
	name              string
	min, max, desired int
	zones             []string
	instances         []instance
	tags              map[string]string
	launch            launchRef
	// Resolved at refresh:
	types        []cloudprovider.InstanceType
	templateTags map[string]string
	taints       []corev1.Taint // from an EKS managed node group
	price        float64        // of a new node; 0 unknown
	// allSpot: the mixed-instances policy launches only spot instances.
	allSpot bool
	// options and optionsInvalid come from the option tags.
	options        cloudprovider.Options
	optionsInvalid string
}

// live counts the instances that are not terminating: AWS's desired
// capacity already excludes those terminated with a decrement.
func (g *asg) live() int {
	n := 0
	for _, in := range g.instances {
		if in.state != cloudprovider.InstanceDeleting {
			n++
		}
	}
	return n
}

// short reports whether desired capacity has no instance yet.
func (g *asg) short() bool { return g.desired > g.live() }

func (g *asg) firstZone() string {
	if len(g.zones) > 0 {
		return g.zones[0]
	}
	return ""
}

// instance is one ASG member.
type instance struct {
	id, zone string
	state    cloudprovider.InstanceState
}

// Refresh describes the ASGs when the refresh interval has passed or a
// deletion made the cached view stale, resolves the templates of new or
// changed groups, and every time checks the scaling activities of groups
// short of instances. On a failed describe the previous view stays.
func (p *Provider) Refresh(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.cfg.Clock.Now()
	if p.stale || p.refreshedAt.IsZero() || now.Sub(p.refreshedAt) >= p.cfg.RefreshInterval {
		if err := p.regenerate(ctx); err != nil {
			return &cloudprovider.APIError{Op: "Refresh", Err: err}
		}
		p.refreshedAt, p.stale = now, false
	}
	p.checkActivities(ctx)
	return nil
}

// regenerate describes every configured and discovered group and replaces
// the cached view.
func (p *Provider) regenerate(ctx context.Context) error {
	described, err := p.describe(ctx)
	if err != nil {
		return err
	}
	if p.catalogue == nil {
		c, apiErr, err := loadCatalogue(ctx, p.cfg.EC2, !p.cfg.StaticInstanceList)
		if err != nil {
			return err
		}
		if apiErr != nil {
			klog.FromContext(ctx).Error(apiErr, "Reading the instance type catalogue failed; using the built-in table")
		}
		p.catalogue = c
	}
	static := map[string]int{}
	for i, s := range p.cfg.Static {
		static[s.Name] = i
	}
	groups := make(map[string]*asg, len(described))
	for i := range described {
		g := fromAWS(&described[i])
		if g == nil || groups[g.name] != nil {
			continue
		}
		if i, ok := static[g.name]; ok {
			s := p.cfg.Static[i]
			g.min, g.max = max(g.min, s.Min), min(g.max, s.Max)
			if g.max < g.min {
				klog.FromContext(ctx).Error(nil, "Skipping node group: --nodes bounds do not overlap the ASG's", "nodeGroup", g.name,
					"nodesMin", s.Min, "nodesMax", s.Max)
				delete(static, g.name)
				continue
			}
		}
		groups[g.name] = g
	}
	for name := range static {
		if groups[name] == nil {
			klog.FromContext(ctx).Error(nil, "Auto Scaling group of --nodes not found", "nodeGroup", name)
		}
	}
	p.resolveTemplates(ctx, groups)
	p.groups = groups
	return nil
}

// describe reads the --nodes groups by name in batches of pageSize and
// each discovery spec with its tag filters, every call paginated.
func (p *Provider) describe(ctx context.Context) ([]astypes.AutoScalingGroup, error) {
	var out []astypes.AutoScalingGroup
	names := make([]string, len(p.cfg.Static))
	for i, s := range p.cfg.Static {
		names[i] = s.Name
	}
	for start := 0; start < len(names); start += pageSize {
		batch := names[start:min(start+pageSize, len(names))]
		groups, err := p.describePages(ctx, &autoscaling.DescribeAutoScalingGroupsInput{AutoScalingGroupNames: batch})
		if err != nil {
			return nil, err
		}
		out = append(out, groups...)
	}
	for _, d := range p.cfg.Discovery {
		groups, err := p.describePages(ctx, &autoscaling.DescribeAutoScalingGroupsInput{Filters: d.filters()})
		if err != nil {
			return nil, fmt.Errorf("discovering %s: %w", d, err)
		}
		out = append(out, groups...)
	}
	return out, nil
}

func (p *Provider) describePages(ctx context.Context, in *autoscaling.DescribeAutoScalingGroupsInput) ([]astypes.AutoScalingGroup, error) {
	in.MaxRecords = awssdk.Int32(pageSize)
	var out []astypes.AutoScalingGroup
	pages := autoscaling.NewDescribeAutoScalingGroupsPaginator(p.cfg.AutoScaling, in)
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx, withFastGroupsDecoder)
		if err != nil {
			return nil, fmt.Errorf("describing Auto Scaling groups: %w", err)
		}
		out = append(out, page.AutoScalingGroups...)
	}
	return out, nil
}

// fromAWS converts a described group; nil for one without a name.
func fromAWS(a *astypes.AutoScalingGroup) *asg {
	name := awssdk.ToString(a.AutoScalingGroupName)
	if name == "" {
		return nil
	}
	g := &asg{name: name, min: int(awssdk.ToInt32(a.MinSize)), max: int(awssdk.ToInt32(a.MaxSize)),
		desired: int(awssdk.ToInt32(a.DesiredCapacity)), zones: a.AvailabilityZones,
		tags: make(map[string]string, len(a.Tags)), launch: launchRefOf(a)}
	for _, t := range a.Tags {
		g.tags[awssdk.ToString(t.Key)] = awssdk.ToString(t.Value)
	}
	g.options, g.optionsInvalid = groupOptions(name, g.tags)
	if m := a.MixedInstancesPolicy; m != nil && m.InstancesDistribution != nil {
		d := m.InstancesDistribution
		g.allSpot = d.OnDemandPercentageAboveBaseCapacity != nil && *d.OnDemandPercentageAboveBaseCapacity == 0 && awssdk.ToInt32(d.OnDemandBaseCapacity) == 0
	}
	g.instances = make([]instance, 0, len(a.Instances))
	for _, in := range a.Instances {
		if inWarmPool(in.LifecycleState) {
			continue
		}
		g.instances = append(g.instances, instance{id: awssdk.ToString(in.InstanceId), zone: awssdk.ToString(in.AvailabilityZone),
			state: stateOf(in.LifecycleState)})
	}
	return g
}

// inWarmPool reports a Warmed:* state: the instance waits in the group's
// warm pool. It is not part of the desired capacity (AWS lists warm pool
// members with DescribeWarmPool, not in the group's instances; should one
// show up there it is skipped), so it is neither running capacity nor a
// missing instance. When the group grows, AWS moves warm instances into it
// and they appear as Pending, then InService, like new ones.
func inWarmPool(s astypes.LifecycleState) bool { return strings.HasPrefix(string(s), "Warmed:") }

// stateOf maps an instance's lifecycle state: pending states are
// creating, terminating and detaching ones deleting, everything else
// (InService, Standby, ...) running.
func stateOf(s astypes.LifecycleState) cloudprovider.InstanceState {
	v := string(s)
	switch {
	case strings.HasPrefix(v, "Pending"):
		return cloudprovider.InstanceCreating
	case strings.HasPrefix(v, "Terminat"), strings.HasPrefix(v, "Detach"):
		return cloudprovider.InstanceDeleting
	}
	return cloudprovider.InstanceRunning
}

// InstanceKnowledge implements cloudprovider.Provider.
// An instance the auto scaling groups list exists; about any other node
// the provider cannot tell, as upstream's HasInstance fails for an instance
// missing from its cache.
func (*Provider) InstanceKnowledge() cloudprovider.InstanceKnowledge {
	return cloudprovider.KnowsListedInstances
}
