package aws_test

import (
	"testing"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	astypes "github.com/aws/aws-sdk-go-v2/service/autoscaling/types"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2/ktesting"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/aws"
	"github.com/kscale/kscale/internal/cloudprovider/aws/awstest"
	"github.com/kscale/kscale/internal/cloudprovider/nodegroupspec"
	"github.com/kscale/kscale/internal/cloudprovider/nodetemplate"
)

// TestGroupsAsEKSRunsThemAgainstMoto builds the templates of an
// attribute-based group (InstanceRequirements, types from the proxy's
// GetInstanceTypesFromInstanceRequirements), of the ASG of an EKS managed
// node group (labels and taints from moto's EKS DescribeNodegroup), and
// counts a group with a warm pool.
func TestGroupsAsEKSRunsThemAgainstMoto(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	moto := awstest.StartMoto(t)
	proxy := awstest.StartProxy(t, moto.URL)
	seed := awstest.NewSeeder(t, moto.URL)
	seed.LaunchTemplate("abs", "")
	seed.LaunchTemplate("general", "m5.large")
	seed.Group(awstest.Group{Name: "abs", Max: 3, Template: "abs", Requirements: &astypes.InstanceRequirements{
		VCpuCount: &astypes.VCpuCountRequest{Min: awssdk.Int32(4), Max: awssdk.Int32(8)}, MemoryMiB: &astypes.MemoryMiBRequest{Min: awssdk.Int32(16384)},
		AllowedInstanceTypes: []string{"m5.*", "r5.*"}}})
	seed.Nodegroup("prod", "data", map[string]string{"team": "data"},
		[]ekstypes.Taint{{Key: awssdk.String("dedicated"), Value: awssdk.String("data"), Effect: ekstypes.TaintEffectNoSchedule}})
	seed.Group(awstest.Group{Name: "eks-data", Max: 3, Template: "general", Tags: awstest.NodegroupTags("prod", "data")})
	seed.Group(awstest.Group{Name: "warm", Max: 3, Desired: 1, Template: "general"})
	seed.WarmPool("warm", 2)

	clients, err := aws.NewClients(ctx, aws.ClientConfig{LoadOptions: awstest.LoadOptions(proxy.URL)})
	if err != nil {
		t.Fatal(err)
	}
	p, err := aws.New(aws.Config{AutoScaling: clients.AutoScaling, EC2: clients.EC2, EKS: clients.EKS, Region: clients.Region,
		Static: []nodegroupspec.Static{{Max: 3, Name: "abs"}, {Max: 3, Name: "eks-data"}, {Max: 3, Name: "warm"}}})
	if err != nil {
		t.Fatal(err)
	}
	groups := refresh(ctx, t, p)
	t.Run("an attribute-based group's template has the minimum of the selected types", func(t *testing.T) {
		g := groups["abs"]
		var names []string
		for _, it := range g.Template.InstanceTypes {
			names = append(names, it.Name)
		}
		// m5.xlarge 4/16Gi, m5.2xlarge 8/32Gi, r5.xlarge 4/32Gi, r5.2xlarge 8/64Gi.
		if len(names) != 4 || names[0] != "m5.2xlarge" || names[3] != "r5.xlarge" {
			t.Fatalf("selected types %v (reason %q)", names, g.Template.UnavailableReason)
		}
		n, err := nodetemplate.FromProvider(g, nodetemplate.NewEstimator(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if n.Status.Capacity.Cpu().String() != "4" || n.Status.Capacity.Memory().String() != "16Gi" || n.Labels[nodetemplate.LabelInstanceType] != nodetemplate.MultipleTypes {
			t.Errorf("capacity %v, labels %v", n.Status.Capacity, n.Labels)
		}
		calls := proxy.Calls("GetInstanceTypesFromInstanceRequirements")
		refresh(ctx, t, p)
		if got := proxy.Calls("GetInstanceTypesFromInstanceRequirements"); got != calls {
			t.Errorf("the selection was not cached: %d calls after a second refresh, had %d", got, calls)
		}
	})
	t.Run("an EKS managed node group's ASG has its labels and taints", func(t *testing.T) {
		n, err := nodetemplate.FromProvider(groups["eks-data"], nodetemplate.NewEstimator(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range map[string]string{"team": "data", "eks.amazonaws.com/nodegroup": "data", "eks.amazonaws.com/capacityType": "ON_DEMAND",
			"nodegroup-name": "data", "cluster-name": "prod"} {
			if n.Labels[k] != v {
				t.Errorf("label %s = %q, want %q (labels %v)", k, n.Labels[k], v, n.Labels)
			}
		}
		want := corev1.Taint{Key: "dedicated", Value: "data", Effect: corev1.TaintEffectNoSchedule}
		if len(n.Spec.Taints) != 1 || n.Spec.Taints[0] != want {
			t.Errorf("taints %v, want %v", n.Spec.Taints, want)
		}
		calls := countPrefix(proxy.Log(), "GET /clusters/prod/node-groups/data")
		refresh(ctx, t, p)
		if got := countPrefix(proxy.Log(), "GET /clusters/prod/node-groups/data"); calls != 1 || got != calls {
			t.Errorf("DescribeNodegroup calls %d, then %d after a second refresh; want 1 (cached)", calls, got)
		}
	})
	t.Run("warm pool instances are not group capacity", func(t *testing.T) {
		insts := instancesOf(ctx, t, p, "warm")
		if g := groups["warm"]; g.TargetSize != 1 || len(insts) != 1 || insts[0].Placeholder || insts[0].State != cloudprovider.InstanceRunning {
			t.Errorf("target %d, instances %+v; want the one InService instance", g.TargetSize, insts)
		}
	})
}

func countPrefix(log []string, prefix string) int {
	n := 0
	for _, e := range log {
		if len(e) >= len(prefix) && e[:len(prefix)] == prefix {
			n++
		}
	}
	return n
}
