package aws

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/autoscaling"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
)

// AutoScalingAPI is the part of the Auto Scaling API the provider calls;
// *autoscaling.Client satisfies it.
type AutoScalingAPI interface {
	// DescribeAutoScalingGroups lists groups by name or tag filters.
	DescribeAutoScalingGroups(ctx context.Context, in *autoscaling.DescribeAutoScalingGroupsInput,
		opts ...func(*autoscaling.Options)) (*autoscaling.DescribeAutoScalingGroupsOutput, error)
	// DescribeLaunchConfigurations reads launch configurations by name.
	DescribeLaunchConfigurations(ctx context.Context, in *autoscaling.DescribeLaunchConfigurationsInput,
		opts ...func(*autoscaling.Options)) (*autoscaling.DescribeLaunchConfigurationsOutput, error)
	// DescribeScalingActivities lists a group's scaling activities, newest
	// first.
	DescribeScalingActivities(ctx context.Context, in *autoscaling.DescribeScalingActivitiesInput,
		opts ...func(*autoscaling.Options)) (*autoscaling.DescribeScalingActivitiesOutput, error)
	// SetDesiredCapacity changes a group's desired capacity.
	SetDesiredCapacity(ctx context.Context, in *autoscaling.SetDesiredCapacityInput,
		opts ...func(*autoscaling.Options)) (*autoscaling.SetDesiredCapacityOutput, error)
	// TerminateInstanceInAutoScalingGroup terminates one instance.
	TerminateInstanceInAutoScalingGroup(ctx context.Context, in *autoscaling.TerminateInstanceInAutoScalingGroupInput,
		opts ...func(*autoscaling.Options)) (*autoscaling.TerminateInstanceInAutoScalingGroupOutput, error)
}

// EC2API is the part of the EC2 API the provider calls; *ec2.Client
// satisfies it.
type EC2API interface {
	// DescribeLaunchTemplateVersions reads launch template versions.
	DescribeLaunchTemplateVersions(ctx context.Context, in *ec2.DescribeLaunchTemplateVersionsInput,
		opts ...func(*ec2.Options)) (*ec2.DescribeLaunchTemplateVersionsOutput, error)
	// DescribeInstanceTypes lists the region's instance types.
	DescribeInstanceTypes(ctx context.Context, in *ec2.DescribeInstanceTypesInput,
		opts ...func(*ec2.Options)) (*ec2.DescribeInstanceTypesOutput, error)
}
