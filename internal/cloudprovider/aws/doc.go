// Package aws is the node autoscaler's provider for AWS Auto Scaling
// groups (ASGs), on aws-sdk-go-v2.
//
// Node groups come from --nodes (min:max:asg-name) and from tag
// auto-discovery (asg:tag=k1[=v1],k2...), read with paginated
// DescribeAutoScalingGroups calls at most once per refresh interval.
// Templates come from the cloud: the instance types of the launch
// configuration, launch template version or mixed-instances overrides,
// with capacities from a DescribeInstanceTypes catalogue (a generated static
// table when the API is not used), zones, region and architecture, and the
// k8s.io/cluster-autoscaler/node-template/ tags. Desired capacity that has
// no instance yet is reported as placeholder instances; failed or cancelled
// scaling activities after the latest scale-up turn them into creation
// errors, so a stocked-out group is backed off within a loop or two.
//
// The provider talks to AWS through two small interfaces (AutoScalingAPI
// and EC2API) that the SDK's clients satisfy; NewClients builds those with
// the SDK's own credential chain, region, retries and endpoint settings
// (AWS_ENDPOINT_URL), and with request metrics on an injected registry.
package aws
