package aws

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/autoscaling"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/eks"
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
	// DescribeSpotPriceHistory reads the current spot prices of instance
	// types.
	DescribeSpotPriceHistory(ctx context.Context, in *ec2.DescribeSpotPriceHistoryInput,
		opts ...func(*ec2.Options)) (*ec2.DescribeSpotPriceHistoryOutput, error)
	// DescribeImages reads the architecture and virtualization type of a
	// launch template's image (attribute-based selection).
	DescribeImages(ctx context.Context, in *ec2.DescribeImagesInput,
		opts ...func(*ec2.Options)) (*ec2.DescribeImagesOutput, error)
	// GetInstanceTypesFromInstanceRequirements lists the instance types
	// that attribute-based selection (InstanceRequirements) chooses from.
	GetInstanceTypesFromInstanceRequirements(ctx context.Context, in *ec2.GetInstanceTypesFromInstanceRequirementsInput,
		opts ...func(*ec2.Options)) (*ec2.GetInstanceTypesFromInstanceRequirementsOutput, error)
}

// EKSAPI is the part of the EKS API the provider calls; *eks.Client
// satisfies it.
type EKSAPI interface {
	// DescribeNodegroup reads a managed node group's labels, taints and
	// tags.
	DescribeNodegroup(ctx context.Context, in *eks.DescribeNodegroupInput,
		opts ...func(*eks.Options)) (*eks.DescribeNodegroupOutput, error)
}
