package aws

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/autoscaling"
	astypes "github.com/aws/aws-sdk-go-v2/service/autoscaling/types"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
)

// fakeAWS is an in-memory Auto Scaling and EC2 API for unit tests: groups
// with tags and instances, launch configurations and template versions,
// scripted scaling activities, and a log of calls.
type fakeAWS struct {
	mu         sync.Mutex
	groups     []*astypes.AutoScalingGroup
	configs    map[string]string             // launch configuration -> type
	templates  map[string]map[string]string  // template name -> version -> type
	activities map[string][]astypes.Activity // per group, newest first
	calls      []string
	fail       map[string]error               // operation -> error
	selected   []string                       // what any instance requirements select
	nodegroups map[string]*ekstypes.Nodegroup // by cluster/name
}

func newFake() *fakeAWS {
	return &fakeAWS{configs: map[string]string{}, templates: map[string]map[string]string{}, activities: map[string][]astypes.Activity{}, fail: map[string]error{},
		selected: []string{"m5.large", "c5.xlarge"}, nodegroups: map[string]*ekstypes.Nodegroup{}}
}

func (f *fakeAWS) call(op string) error {
	f.calls = append(f.calls, op)
	return f.fail[op]
}

func (f *fakeAWS) count(op string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		if c == op {
			n++
		}
	}
	return n
}

// addGroup adds an ASG launched from template lt ($Default) with n
// instances in its first zone.
func (f *fakeAWS) addGroup(name string, minSize, maxSize, n int, tags map[string]string, launch func(*astypes.AutoScalingGroup)) {
	g := &astypes.AutoScalingGroup{AutoScalingGroupName: awssdk.String(name), MinSize: awssdk.Int32(int32(minSize)),
		MaxSize: awssdk.Int32(int32(maxSize)), DesiredCapacity: awssdk.Int32(int32(n)), AvailabilityZones: []string{"eu-central-1a", "eu-central-1b"}}
	for k, v := range tags {
		g.Tags = append(g.Tags, astypes.TagDescription{Key: awssdk.String(k), Value: awssdk.String(v)})
	}
	for i := range n {
		g.Instances = append(g.Instances, astypes.Instance{InstanceId: awssdk.String(name + "-i" + string(rune('0'+i))),
			AvailabilityZone: awssdk.String("eu-central-1a"), LifecycleState: astypes.LifecycleStateInService})
	}
	if launch != nil {
		launch(g)
	}
	f.groups = append(f.groups, g)
}

func (f *fakeAWS) find(name string) *astypes.AutoScalingGroup {
	for _, g := range f.groups {
		if *g.AutoScalingGroupName == name {
			return g
		}
	}
	return nil
}

func matches(g *astypes.AutoScalingGroup, filters []astypes.Filter) bool {
	for _, fl := range filters {
		name := awssdk.ToString(fl.Name)
		ok := slices.ContainsFunc(g.Tags, func(t astypes.TagDescription) bool {
			if name == "tag-key" {
				return slices.Contains(fl.Values, *t.Key)
			}
			key, _ := strings.CutPrefix(name, "tag:")
			return *t.Key == key && slices.Contains(fl.Values, *t.Value)
		})
		if !ok {
			return false
		}
	}
	return true
}

func (f *fakeAWS) DescribeAutoScalingGroups(_ context.Context, in *autoscaling.DescribeAutoScalingGroupsInput,
	_ ...func(*autoscaling.Options)) (*autoscaling.DescribeAutoScalingGroupsOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("DescribeAutoScalingGroups"); err != nil {
		return nil, err
	}
	var all []astypes.AutoScalingGroup
	for _, g := range f.groups {
		if (len(in.AutoScalingGroupNames) == 0 || slices.Contains(in.AutoScalingGroupNames, *g.AutoScalingGroupName)) && matches(g, in.Filters) {
			all = append(all, *g)
		}
	}
	start := 0
	if in.NextToken != nil {
		start = slices.IndexFunc(all, func(g astypes.AutoScalingGroup) bool { return *g.AutoScalingGroupName == *in.NextToken })
	}
	end := min(start+int(awssdk.ToInt32(in.MaxRecords)), len(all))
	out := &autoscaling.DescribeAutoScalingGroupsOutput{AutoScalingGroups: all[start:end]}
	if end < len(all) {
		out.NextToken = all[end].AutoScalingGroupName
	}
	return out, nil
}

func (f *fakeAWS) DescribeLaunchConfigurations(_ context.Context, in *autoscaling.DescribeLaunchConfigurationsInput,
	_ ...func(*autoscaling.Options)) (*autoscaling.DescribeLaunchConfigurationsOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("DescribeLaunchConfigurations"); err != nil {
		return nil, err
	}
	out := &autoscaling.DescribeLaunchConfigurationsOutput{}
	for _, n := range in.LaunchConfigurationNames {
		if t, ok := f.configs[n]; ok {
			out.LaunchConfigurations = append(out.LaunchConfigurations, astypes.LaunchConfiguration{LaunchConfigurationName: awssdk.String(n), InstanceType: awssdk.String(t)})
		}
	}
	return out, nil
}

func (f *fakeAWS) DescribeScalingActivities(_ context.Context, in *autoscaling.DescribeScalingActivitiesInput,
	_ ...func(*autoscaling.Options)) (*autoscaling.DescribeScalingActivitiesOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("DescribeScalingActivities"); err != nil {
		return nil, err
	}
	acts := f.activities[awssdk.ToString(in.AutoScalingGroupName)]
	if n := int(awssdk.ToInt32(in.MaxRecords)); n > 0 && n < len(acts) {
		acts = acts[:n]
	}
	return &autoscaling.DescribeScalingActivitiesOutput{Activities: slices.Clone(acts)}, nil
}

// addActivity records a new (newest) activity for the group.
func (f *fakeAWS) addActivity(group, id string, start time.Time, code astypes.ScalingActivityStatusCode, msg string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	a := astypes.Activity{ActivityId: awssdk.String(id), AutoScalingGroupName: awssdk.String(group), StartTime: awssdk.Time(start),
		StatusCode: code, StatusMessage: awssdk.String(msg)}
	f.activities[group] = append([]astypes.Activity{a}, f.activities[group]...)
}

func (f *fakeAWS) SetDesiredCapacity(_ context.Context, in *autoscaling.SetDesiredCapacityInput,
	_ ...func(*autoscaling.Options)) (*autoscaling.SetDesiredCapacityOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("SetDesiredCapacity"); err != nil {
		return nil, err
	}
	if awssdk.ToBool(in.HonorCooldown) {
		return nil, errors.New("HonorCooldown must be false")
	}
	g := f.find(awssdk.ToString(in.AutoScalingGroupName))
	if g == nil {
		return nil, errors.New("ValidationError: group not found")
	}
	g.DesiredCapacity = in.DesiredCapacity
	return &autoscaling.SetDesiredCapacityOutput{}, nil
}

func (f *fakeAWS) TerminateInstanceInAutoScalingGroup(_ context.Context, in *autoscaling.TerminateInstanceInAutoScalingGroupInput,
	_ ...func(*autoscaling.Options)) (*autoscaling.TerminateInstanceInAutoScalingGroupOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("TerminateInstanceInAutoScalingGroup"); err != nil {
		return nil, err
	}
	if !awssdk.ToBool(in.ShouldDecrementDesiredCapacity) {
		return nil, errors.New("ShouldDecrementDesiredCapacity must be true")
	}
	for _, g := range f.groups {
		for i, inst := range g.Instances {
			if *inst.InstanceId == *in.InstanceId {
				g.Instances[i].LifecycleState = astypes.LifecycleStateTerminating
				g.DesiredCapacity = awssdk.Int32(*g.DesiredCapacity - 1)
				return &autoscaling.TerminateInstanceInAutoScalingGroupOutput{}, nil
			}
		}
	}
	return nil, errors.New("ValidationError: instance not found")
}

func (f *fakeAWS) DescribeLaunchTemplateVersions(_ context.Context, in *ec2.DescribeLaunchTemplateVersionsInput,
	_ ...func(*ec2.Options)) (*ec2.DescribeLaunchTemplateVersionsOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("DescribeLaunchTemplateVersions"); err != nil {
		return nil, err
	}
	t, ok := f.templates[awssdk.ToString(in.LaunchTemplateName)][in.Versions[0]]
	if !ok {
		return &ec2.DescribeLaunchTemplateVersionsOutput{}, nil
	}
	data := &ec2types.ResponseLaunchTemplateData{InstanceType: ec2types.InstanceType(t), ImageId: awssdk.String("ami-1")}
	if t == "" {
		data.InstanceRequirements = &ec2types.InstanceRequirements{}
	}
	return &ec2.DescribeLaunchTemplateVersionsOutput{LaunchTemplateVersions: []ec2types.LaunchTemplateVersion{{LaunchTemplateData: data}}}, nil
}

func (f *fakeAWS) DescribeInstanceTypes(_ context.Context, _ *ec2.DescribeInstanceTypesInput,
	_ ...func(*ec2.Options)) (*ec2.DescribeInstanceTypesOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("DescribeInstanceTypes"); err != nil {
		return nil, err
	}
	return &ec2.DescribeInstanceTypesOutput{InstanceTypes: []ec2types.InstanceTypeInfo{{
		InstanceType: "x9.custom", VCpuInfo: &ec2types.VCpuInfo{DefaultVCpus: awssdk.Int32(3)},
		MemoryInfo:    &ec2types.MemoryInfo{SizeInMiB: awssdk.Int64(3072)},
		GpuInfo:       &ec2types.GpuInfo{Gpus: []ec2types.GpuDeviceInfo{{Count: awssdk.Int32(1)}, {Count: awssdk.Int32(2)}}},
		ProcessorInfo: &ec2types.ProcessorInfo{SupportedArchitectures: []ec2types.ArchitectureType{ec2types.ArchitectureTypeArm64}},
	}}}, nil
}

// withTemplate launches the group from a named template version.
func withTemplate(name, version string) func(*astypes.AutoScalingGroup) {
	return func(g *astypes.AutoScalingGroup) {
		g.LaunchTemplate = &astypes.LaunchTemplateSpecification{LaunchTemplateName: awssdk.String(name)}
		if version != "" {
			g.LaunchTemplate.Version = awssdk.String(version)
		}
	}
}

// withConfig launches the group from a launch configuration.
func withConfig(name string) func(*astypes.AutoScalingGroup) {
	return func(g *astypes.AutoScalingGroup) { g.LaunchConfigurationName = awssdk.String(name) }
}

// withOverrides gives the group a mixed-instances policy.
func withOverrides(template string, types ...string) func(*astypes.AutoScalingGroup) {
	return func(g *astypes.AutoScalingGroup) {
		lt := &astypes.LaunchTemplate{LaunchTemplateSpecification: &astypes.LaunchTemplateSpecification{LaunchTemplateName: awssdk.String(template)}}
		for _, t := range types {
			lt.Overrides = append(lt.Overrides, astypes.LaunchTemplateOverrides{InstanceType: awssdk.String(t)})
		}
		if len(types) == 0 {
			lt.Overrides = []astypes.LaunchTemplateOverrides{{InstanceRequirements: &astypes.InstanceRequirements{}}}
		}
		g.MixedInstancesPolicy = &astypes.MixedInstancesPolicy{LaunchTemplate: lt}
	}
}

func (f *fakeAWS) DescribeImages(_ context.Context, in *ec2.DescribeImagesInput, _ ...func(*ec2.Options)) (*ec2.DescribeImagesOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("DescribeImages"); err != nil {
		return nil, err
	}
	return &ec2.DescribeImagesOutput{Images: []ec2types.Image{{ImageId: awssdk.String(in.ImageIds[0]), Architecture: ec2types.ArchitectureValuesX8664,
		VirtualizationType: ec2types.VirtualizationTypeHvm}}}, nil
}

func (f *fakeAWS) GetInstanceTypesFromInstanceRequirements(_ context.Context, _ *ec2.GetInstanceTypesFromInstanceRequirementsInput,
	_ ...func(*ec2.Options)) (*ec2.GetInstanceTypesFromInstanceRequirementsOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("GetInstanceTypesFromInstanceRequirements"); err != nil {
		return nil, err
	}
	out := &ec2.GetInstanceTypesFromInstanceRequirementsOutput{}
	for _, n := range f.selected {
		out.InstanceTypes = append(out.InstanceTypes, ec2types.InstanceTypeInfoFromInstanceRequirements{InstanceType: awssdk.String(n)})
	}
	return out, nil
}

func (f *fakeAWS) DescribeNodegroup(_ context.Context, in *eks.DescribeNodegroupInput, _ ...func(*eks.Options)) (*eks.DescribeNodegroupOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("DescribeNodegroup"); err != nil {
		return nil, err
	}
	ng, ok := f.nodegroups[awssdk.ToString(in.ClusterName)+"/"+awssdk.ToString(in.NodegroupName)]
	if !ok {
		return nil, errors.New("ResourceNotFoundException: no node group")
	}
	return &eks.DescribeNodegroupOutput{Nodegroup: ng}, nil
}

func (f *fakeAWS) DescribeSpotPriceHistory(_ context.Context, in *ec2.DescribeSpotPriceHistoryInput,
	_ ...func(*ec2.Options)) (*ec2.DescribeSpotPriceHistoryOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("DescribeSpotPriceHistory"); err != nil {
		return nil, err
	}
	out := &ec2.DescribeSpotPriceHistoryOutput{}
	for _, t := range in.InstanceTypes {
		for i, zone := range []string{"eu-central-1a", "eu-central-1b", "eu-central-1c"} {
			out.SpotPriceHistory = append(out.SpotPriceHistory, ec2types.SpotPrice{InstanceType: t, AvailabilityZone: awssdk.String(zone),
				SpotPrice: awssdk.String(fmt.Sprint(0.03 + 0.01*float64(i)))})
		}
	}
	return out, nil
}
