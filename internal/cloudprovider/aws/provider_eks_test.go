package aws

import (
	"slices"
	"strings"
	"testing"
	"time"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	astypes "github.com/aws/aws-sdk-go-v2/service/autoscaling/types"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/cloudprovider"
)

func TestManagedNodegroupTemplate(t *testing.T) {
	f := newFake()
	f.templates["lt"] = map[string]string{"$Default": "m5.large"}
	f.nodegroups["prod/data"] = &ekstypes.Nodegroup{NodegroupName: awssdk.String("data"), CapacityType: ekstypes.CapacityTypesSpot,
		DiskSize: awssdk.Int32(50), Version: awssdk.String("1.36"), AmiType: ekstypes.AMITypesAl2023X8664Standard,
		Labels: map[string]string{"team": "data", "pool": "eks"},
		Taints: []ekstypes.Taint{{Key: awssdk.String("dedicated"), Value: awssdk.String("data"), Effect: ekstypes.TaintEffectNoSchedule},
			{Key: awssdk.String("gpu"), Effect: ekstypes.TaintEffectPreferNoSchedule}},
		Tags: map[string]string{cloudprovider.TagResourcePrefix + "ephemeral-storage": "100Gi", "other": "x"}}
	tags := map[string]string{"k8s.io/cluster-autoscaler/enabled": "true", "eks:cluster-name": "prod", "eks:nodegroup-name": "data",
		cloudprovider.TagLabelPrefix + "pool": "asg"}
	f.addGroup("eks-data", 0, 5, 0, tags, withTemplate("lt", ""))
	missing := map[string]string{"k8s.io/cluster-autoscaler/enabled": "true", "eks:cluster-name": "prod", "eks:nodegroup-name": "gone"}
	f.addGroup("eks-gone", 0, 5, 0, missing, withTemplate("lt", ""))
	p, clk := newTestProvider(t, f, nil)
	groups := groupsByID(t, p)
	g := groups["eks-data"].Template
	for k, v := range map[string]string{"team": "data", "pool": "eks", "eks.amazonaws.com/capacityType": "SPOT", "diskSize": "50",
		"k8sVersion": "1.36", "amiType": "AL2023_x86_64_STANDARD", "eks.amazonaws.com/nodegroup": "data", "cluster-name": "prod"} {
		if got := g.Tags[cloudprovider.TagLabelPrefix+k]; got != v {
			t.Errorf("label %s = %q, want %q", k, got, v)
		}
	}
	if g.Tags[cloudprovider.TagResourcePrefix+"ephemeral-storage"] != "100Gi" || g.Tags["other"] != "" {
		t.Errorf("tags %v: want the node group's resource tag only", g.Tags)
	}
	want := []corev1.Taint{{Key: "dedicated", Value: "data", Effect: corev1.TaintEffectNoSchedule}, {Key: "gpu", Effect: corev1.TaintEffectPreferNoSchedule}}
	if !slices.Equal(g.Taints, want) {
		t.Errorf("taints %v, want %v", g.Taints, want)
	}
	// A spot node group's price is the lowest spot price of its zones.
	if g.PricePerHour != 0.03 {
		t.Errorf("price %v, want the spot price 0.03", g.PricePerHour)
	}
	if gone := groups["eks-gone"].Template; len(gone.Taints) != 0 || len(gone.InstanceTypes) != 1 || gone.PricePerHour != 0.096 {
		t.Errorf("a failed DescribeNodegroup: template %+v, want the ASG's (on-demand m5.large)", gone)
	}
	calls := f.count("DescribeNodegroup")
	p.stale = true
	groupsByID(t, p)
	if n := f.count("DescribeNodegroup"); n != calls+1 {
		t.Errorf("DescribeNodegroup calls %d after a refresh, had %d: want only the failed one again", n, calls)
	}
	clk.SetTime(clk.Now().Add(DefaultEKSCacheTTL))
	p.stale = true
	groupsByID(t, p)
	if n := f.count("DescribeNodegroup"); n != calls+3 {
		t.Errorf("DescribeNodegroup calls %d after the cache expired, want %d", n, calls+3)
	}
}

func TestWarmPoolInstancesAreNotCapacity(t *testing.T) {
	f := newFake()
	f.templates["lt"] = map[string]string{"$Default": "m5.large"}
	f.addGroup("warm", 0, 5, 1, enabled, func(g *astypes.AutoScalingGroup) {
		withTemplate("lt", "")(g)
		for i, s := range []astypes.LifecycleState{astypes.LifecycleStateWarmedStopped, astypes.LifecycleStateWarmedRunning, astypes.LifecycleStateWarmedPending} {
			g.Instances = append(g.Instances, astypes.Instance{InstanceId: awssdk.String("i-warm" + string(rune('0'+i))),
				AvailabilityZone: awssdk.String("eu-central-1a"), LifecycleState: s})
		}
	})
	f.addGroup("warm-short", 0, 5, 0, enabled, func(g *astypes.AutoScalingGroup) {
		withTemplate("lt", "")(g)
		g.DesiredCapacity = awssdk.Int32(1)
		g.Instances = []astypes.Instance{{InstanceId: awssdk.String("i-w"), AvailabilityZone: awssdk.String("eu-central-1a"),
			LifecycleState: astypes.LifecycleStateWarmedStopped}}
	})
	p, _ := newTestProvider(t, f, nil)
	groupsByID(t, p)
	insts, err := p.Instances(testCtx(t), "warm")
	if err != nil {
		t.Fatal(err)
	}
	if len(insts) != 1 || insts[0].ID != "warm-i0" || insts[0].State != cloudprovider.InstanceRunning {
		t.Errorf("instances %+v, want only the InService one", insts)
	}
	insts, err = p.Instances(testCtx(t), "warm-short")
	if err != nil {
		t.Fatal(err)
	}
	if len(insts) != 1 || !insts[0].Placeholder {
		t.Errorf("instances %+v, want one placeholder: a warm instance does not fill desired capacity", insts)
	}
}

func TestGroupPrices(t *testing.T) {
	f := newFake()
	f.templates["lt"] = map[string]string{"$Default": "m5.large"}
	f.addGroup("on-demand", 0, 5, 0, enabled, withOverrides("lt", "m5.xlarge", "c5.xlarge"))
	f.addGroup("spot", 0, 5, 0, enabled, func(g *astypes.AutoScalingGroup) {
		withOverrides("lt", "m5.xlarge", "c5.xlarge")(g)
		g.MixedInstancesPolicy.InstancesDistribution = &astypes.InstancesDistribution{OnDemandPercentageAboveBaseCapacity: awssdk.Int32(0)}
	})
	f.addGroup("mostly-spot", 0, 5, 0, enabled, func(g *astypes.AutoScalingGroup) {
		withOverrides("lt", "m5.xlarge")(g)
		g.MixedInstancesPolicy.InstancesDistribution = &astypes.InstancesDistribution{OnDemandPercentageAboveBaseCapacity: awssdk.Int32(0),
			OnDemandBaseCapacity: awssdk.Int32(1)}
	})
	f.addGroup("unpriced", 0, 5, 0, enabled, withOverrides("lt", "mac1.metal"))
	p, clk := newTestProvider(t, f, nil)
	groups := groupsByID(t, p)
	for g, want := range map[string]float64{"on-demand": 0.17, "spot": 0.03, "mostly-spot": 0.192, "unpriced": 0} {
		if got := groups[g].Template.PricePerHour; got != want {
			t.Errorf("group %s: price %v, want %v", g, got, want)
		}
	}
	calls := f.count("DescribeSpotPriceHistory")
	clk.SetTime(clk.Now().Add(time.Minute))
	p.stale = true
	groupsByID(t, p)
	if n := f.count("DescribeSpotPriceHistory"); n != calls || calls != 1 {
		t.Errorf("DescribeSpotPriceHistory calls %d then %d, want 1 (cached)", calls, n)
	}
	if _, err := parsePrices([]byte("# x\nm5.large,abc\n")); err == nil || err.Error() != `price table line 2: want <type>,<positive price>, got "m5.large,abc"` {
		t.Errorf("bad table: %v", err)
	}
}

// FuzzParsePrices checks that the price table parser accepts only
// positive prices and reports a line for everything else.
func FuzzParsePrices(f *testing.F) {
	f.Add([]byte("# c\nm5.large,0.096\n"))
	f.Add([]byte("m5.large,-1\n"))
	f.Add([]byte(",0.1\nx,NaN"))
	f.Fuzz(func(t *testing.T, data []byte) {
		prices, err := parsePrices(data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "price table line ") && !strings.Contains(err.Error(), "token too long") {
				t.Fatalf("error %q names no line", err)
			}
			return
		}
		for name, v := range prices {
			if name == "" || !(v > 0) {
				t.Fatalf("accepted %q = %v", name, v)
			}
		}
	})
}

func TestPriceTableParses(t *testing.T) {
	prices, err := onDemandPrices()
	if err != nil || prices["m5.large"] != 0.096 || len(prices) < 50 {
		t.Fatalf("built-in price table: %d prices, m5.large %v, %v", len(prices), prices["m5.large"], err)
	}
	// Karpenter's us-east-1 table (hack/awsprices) lacks only types that
	// region does not sell on demand in shared tenancy (mac*, hpc*, ...).
	missing := 0
	for _, it := range StaticInstanceTypes() {
		if _, ok := prices[it.Name]; !ok {
			missing++
		}
	}
	if total := len(StaticInstanceTypes()); missing*20 > total {
		t.Errorf("%d of the %d types of the instance type table have no price, want at most 5%%", missing, total)
	}
}
