package awstest

import (
	"testing"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/autoscaling"
	astypes "github.com/aws/aws-sdk-go-v2/service/autoscaling/types"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
)

// AMI is a machine image moto ships (x86_64, hvm).
const AMI = "ami-12c6146b"

// Zones are the availability zones of seeded groups.
var Zones = []string{Region + "a", Region + "b"}

// Group describes an Auto Scaling group to seed.
type Group struct {
	// Name is the ASG name.
	Name string
	// Min, Max and Desired are the ASG's sizes.
	Min, Max, Desired int
	// Template names the launch template ($Default version); Config names
	// a launch configuration instead.
	Template, Config string
	// Overrides are the instance types of a mixed-instances policy.
	Overrides []string
	// Requirements, when set, make the group select its instance types
	// by attributes: a mixed-instances policy with one InstanceRequirements
	// override.
	Requirements *astypes.InstanceRequirements
	// Tags are the ASG's tags.
	Tags map[string]string
}

// Seeder creates launch templates, launch configurations and groups
// through the real API.
type Seeder struct {
	tb  testing.TB
	as  *autoscaling.Client
	ec2 *ec2.Client
	eks *eks.Client
}

// NewSeeder talks to endpoint (moto itself, not the proxy).
func NewSeeder(tb testing.TB, endpoint string) *Seeder {
	cfg := Config(tb, endpoint)
	return &Seeder{tb: tb, as: autoscaling.NewFromConfig(cfg), ec2: ec2.NewFromConfig(cfg), eks: eks.NewFromConfig(cfg)}
}

// LaunchTemplate creates a launch template of one instance type, or of
// none when instanceType is empty (for attribute-based selection).
func (s *Seeder) LaunchTemplate(name, instanceType string) {
	s.tb.Helper()
	_, err := s.ec2.CreateLaunchTemplate(s.tb.Context(), &ec2.CreateLaunchTemplateInput{LaunchTemplateName: awssdk.String(name),
		LaunchTemplateData: &ec2types.RequestLaunchTemplateData{ImageId: awssdk.String(AMI), InstanceType: ec2types.InstanceType(instanceType)}})
	if err != nil {
		s.tb.Fatalf("creating launch template %s: %v", name, err)
	}
}

// LaunchConfiguration creates a launch configuration of one instance type.
func (s *Seeder) LaunchConfiguration(name, instanceType string) {
	s.tb.Helper()
	_, err := s.as.CreateLaunchConfiguration(s.tb.Context(), &autoscaling.CreateLaunchConfigurationInput{
		LaunchConfigurationName: awssdk.String(name), ImageId: awssdk.String(AMI), InstanceType: awssdk.String(instanceType)})
	if err != nil {
		s.tb.Fatalf("creating launch configuration %s: %v", name, err)
	}
}

// Group creates an Auto Scaling group.
func (s *Seeder) Group(g Group) {
	s.tb.Helper()
	in := &autoscaling.CreateAutoScalingGroupInput{AutoScalingGroupName: awssdk.String(g.Name), MinSize: awssdk.Int32(int32(g.Min)),
		MaxSize: awssdk.Int32(int32(g.Max)), DesiredCapacity: awssdk.Int32(int32(g.Desired)), AvailabilityZones: Zones}
	spec := &astypes.LaunchTemplateSpecification{LaunchTemplateName: awssdk.String(g.Template)}
	switch {
	case g.Requirements != nil:
		in.MixedInstancesPolicy = &astypes.MixedInstancesPolicy{LaunchTemplate: &astypes.LaunchTemplate{LaunchTemplateSpecification: spec,
			Overrides: []astypes.LaunchTemplateOverrides{{InstanceRequirements: g.Requirements}}}}
	case len(g.Overrides) > 0:
		lt := &astypes.LaunchTemplate{LaunchTemplateSpecification: spec}
		for _, t := range g.Overrides {
			lt.Overrides = append(lt.Overrides, astypes.LaunchTemplateOverrides{InstanceType: awssdk.String(t)})
		}
		in.MixedInstancesPolicy = &astypes.MixedInstancesPolicy{LaunchTemplate: lt}
	case g.Config != "":
		in.LaunchConfigurationName = awssdk.String(g.Config)
	default:
		in.LaunchTemplate = spec
	}
	for k, v := range g.Tags {
		in.Tags = append(in.Tags, astypes.Tag{Key: awssdk.String(k), Value: awssdk.String(v), PropagateAtLaunch: awssdk.Bool(true),
			ResourceId: awssdk.String(g.Name), ResourceType: awssdk.String("auto-scaling-group")})
	}
	if _, err := s.as.CreateAutoScalingGroup(s.tb.Context(), in); err != nil {
		s.tb.Fatalf("creating Auto Scaling group %s: %v", g.Name, err)
	}
}

// Describe returns a group as moto holds it.
func (s *Seeder) Describe(name string) astypes.AutoScalingGroup {
	s.tb.Helper()
	out, err := s.as.DescribeAutoScalingGroups(s.tb.Context(), &autoscaling.DescribeAutoScalingGroupsInput{AutoScalingGroupNames: []string{name}})
	if err != nil || len(out.AutoScalingGroups) != 1 {
		s.tb.Fatalf("describing %s: %v", name, err)
	}
	return out.AutoScalingGroups[0]
}

// Nodegroup creates an EKS managed node group (and its cluster, when new)
// with labels and taints. moto creates no ASG for it: seed one with the
// tags EKS gives its ASGs (NodegroupTags).
func (s *Seeder) Nodegroup(cluster, name string, labels map[string]string, taints []ekstypes.Taint) {
	s.tb.Helper()
	ctx := s.tb.Context()
	if _, err := s.eks.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: awssdk.String(cluster)}); err != nil {
		_, err = s.eks.CreateCluster(ctx, &eks.CreateClusterInput{Name: awssdk.String(cluster), RoleArn: awssdk.String(role),
			ResourcesVpcConfig: &ekstypes.VpcConfigRequest{SubnetIds: []string{"subnet-1"}}})
		if err != nil {
			s.tb.Fatalf("creating EKS cluster %s: %v", cluster, err)
		}
	}
	_, err := s.eks.CreateNodegroup(ctx, &eks.CreateNodegroupInput{ClusterName: awssdk.String(cluster), NodegroupName: awssdk.String(name),
		NodeRole: awssdk.String(role), Subnets: []string{"subnet-1"}, Labels: labels, Taints: taints, CapacityType: ekstypes.CapacityTypesOnDemand,
		ScalingConfig: &ekstypes.NodegroupScalingConfig{MinSize: awssdk.Int32(0), MaxSize: awssdk.Int32(3), DesiredSize: awssdk.Int32(0)}})
	if err != nil {
		s.tb.Fatalf("creating EKS node group %s: %v", name, err)
	}
}

// role is the IAM role of seeded EKS clusters and node groups.
const role = "arn:aws:iam::123456789012:role/kscale-test"

// NodegroupTags are the tags EKS puts on the ASG of a managed node group.
func NodegroupTags(cluster, name string) map[string]string {
	return map[string]string{"eks:cluster-name": cluster, "eks:nodegroup-name": name}
}

// WarmPool gives a group a warm pool of minSize stopped instances.
func (s *Seeder) WarmPool(group string, minSize int) {
	s.tb.Helper()
	_, err := s.as.PutWarmPool(s.tb.Context(), &autoscaling.PutWarmPoolInput{AutoScalingGroupName: awssdk.String(group),
		MinSize: awssdk.Int32(int32(minSize)), PoolState: astypes.WarmPoolStateStopped})
	if err != nil {
		s.tb.Fatalf("creating the warm pool of %s: %v", group, err)
	}
}
