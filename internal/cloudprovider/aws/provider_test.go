package aws

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	astypes "github.com/aws/aws-sdk-go-v2/service/autoscaling/types"
	"k8s.io/klog/v2/ktesting"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/nodegroupspec"
	"github.com/kscale/kscale/internal/cloudprovider/nodetemplate"
)

var t0 = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

func newTestProvider(t *testing.T, f *fakeAWS, mutate func(*Config)) (*Provider, *clocktesting.FakePassiveClock) {
	t.Helper()
	clk := clocktesting.NewFakePassiveClock(t0)
	d, err := ParseDiscovery("asg:tag=k8s.io/cluster-autoscaler/enabled")
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{AutoScaling: f, EC2: f, EKS: f, Region: "eu-central-1", Clock: clk, Discovery: []Discovery{d}, StaticInstanceList: true}
	if mutate != nil {
		mutate(&cfg)
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p, clk
}

var enabled = map[string]string{"k8s.io/cluster-autoscaler/enabled": "true"}

func groupsByID(t *testing.T, p *Provider) map[string]cloudprovider.NodeGroup {
	t.Helper()
	if err := p.Refresh(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	gs, err := p.NodeGroups(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]cloudprovider.NodeGroup{}
	for _, g := range gs {
		out[g.ID] = g
	}
	return out
}

func TestTemplates(t *testing.T) {
	f := newFake()
	f.configs["lc"] = "c4.xlarge"
	f.templates["lt"] = map[string]string{"$Default": "m5.large", "3": "m6g.large", "$Latest": "r5.large"}
	f.templates["abs"] = map[string]string{"$Default": ""}
	f.addGroup("from-config", 0, 5, 0, enabled, withConfig("lc"))
	f.addGroup("from-template", 0, 5, 0, enabled, withTemplate("lt", ""))
	f.addGroup("graviton", 0, 5, 0, enabled, withTemplate("lt", "3"))
	f.addGroup("mixed", 0, 5, 0, enabled, withOverrides("lt", "c4.xlarge", "r4.large", "c4.xlarge"))
	f.addGroup("mixed-no-overrides", 0, 5, 0, enabled, func(g *astypes.AutoScalingGroup) {
		withOverrides("lt", "m5.large")(g)
		g.MixedInstancesPolicy.LaunchTemplate.Overrides = nil
		withTemplate("lt", "$Latest")(g)
		g.MixedInstancesPolicy.LaunchTemplate.LaunchTemplateSpecification = g.LaunchTemplate
		g.LaunchTemplate = nil
	})
	f.addGroup("requirements", 0, 5, 0, enabled, withOverrides("lt"))
	f.addGroup("template-requirements", 0, 5, 0, enabled, withTemplate("abs", ""))
	f.addGroup("unknown-type", 0, 5, 0, enabled, withOverrides("lt", "zz.huge"))
	f.addGroup("missing-template", 0, 5, 0, enabled, withTemplate("nope", ""))
	p, _ := newTestProvider(t, f, nil)
	groups := groupsByID(t, p)
	for _, tc := range []struct {
		group, cpu, memory, arch, instanceType string
	}{
		{group: "from-config", cpu: "4", memory: "7680Mi", arch: "amd64", instanceType: "c4.xlarge"},
		{group: "from-template", cpu: "2", memory: "8Gi", arch: "amd64", instanceType: "m5.large"},
		{group: "graviton", cpu: "2", memory: "8Gi", arch: "arm64", instanceType: "m6g.large"},
		{group: "mixed", cpu: "2", memory: "7680Mi", arch: "amd64", instanceType: nodetemplate.MultipleTypes},
		{group: "mixed-no-overrides", cpu: "2", memory: "16Gi", arch: "amd64", instanceType: "r5.large"},
		// Attribute-based: the fake selects m5.large (2/8Gi) and c5.xlarge (4/8Gi).
		{group: "requirements", cpu: "2", memory: "8Gi", arch: "amd64", instanceType: nodetemplate.MultipleTypes},
		{group: "template-requirements", cpu: "2", memory: "8Gi", arch: "amd64", instanceType: nodetemplate.MultipleTypes},
	} {
		t.Run(tc.group, func(t *testing.T) {
			n, err := nodetemplate.FromProvider(groups[tc.group], nodetemplate.NewEstimator(), nil)
			if err != nil {
				t.Fatal(err)
			}
			c := n.Status.Capacity
			if c.Cpu().String() != tc.cpu || c.Memory().String() != tc.memory || c.Pods().Value() != 110 {
				t.Errorf("capacity %v, want cpu %s memory %s pods 110", c, tc.cpu, tc.memory)
			}
			l := n.Labels
			if l[nodetemplate.LabelArch] != tc.arch || l[nodetemplate.LabelInstanceType] != tc.instanceType || l[nodetemplate.LabelZone] != "eu-central-1a" ||
				l[nodetemplate.LabelRegion] != "eu-central-1" || l[LabelEBSZone] != "eu-central-1a" {
				t.Errorf("labels %v", l)
			}
		})
	}
	for _, g := range []string{"unknown-type", "missing-template"} {
		if got := groups[g]; len(got.Template.InstanceTypes) != 0 || got.MaxSize != 5 {
			t.Errorf("group %s: %+v, want it listed without instance types", g, got)
		}
	}
	if n := f.count("DescribeLaunchConfigurations"); n != 1 {
		t.Errorf("%d DescribeLaunchConfigurations calls, want 1 batch", n)
	}
	if n := f.count("DescribeAutoScalingGroups"); n != 2 {
		t.Errorf("%d DescribeAutoScalingGroups calls, want 2 (the groups, and the requirements group by name)", n)
	}
	before, selections := f.count("DescribeLaunchTemplateVersions"), f.count("GetInstanceTypesFromInstanceRequirements")
	p.stale = true
	groupsByID(t, p)
	// Only the templates that failed are read again; found ones, override
	// requirements and selections are cached.
	if n := f.count("DescribeLaunchTemplateVersions") - before; n != 1 {
		t.Errorf("%d DescribeLaunchTemplateVersions calls on the second refresh, want 1 (the failed lookup)", n)
	}
	if n := f.count("GetInstanceTypesFromInstanceRequirements"); n != selections || n == 0 || f.count("DescribeAutoScalingGroups") != 3 {
		t.Errorf("GetInstanceTypesFromInstanceRequirements calls %d, then %d; DescribeAutoScalingGroups %d: want the selection and requirements cached",
			selections, n, f.count("DescribeAutoScalingGroups"))
	}
}

func TestCatalogueFromAPI(t *testing.T) {
	f := newFake()
	f.templates["lt"] = map[string]string{"$Default": "x9.custom"}
	f.addGroup("custom", 0, 3, 0, enabled, withTemplate("lt", ""))
	p, _ := newTestProvider(t, f, func(c *Config) { c.StaticInstanceList = false })
	it := groupsByID(t, p)["custom"].Template.InstanceTypes
	if len(it) != 1 || it[0].Architecture != "arm64" || it[0].Capacity.Cpu().Value() != 3 || it[0].Capacity.Name(ResourceGPU, "").Value() != 3 {
		t.Fatalf("instance types %+v", it)
	}
	f.fail["DescribeInstanceTypes"] = fmt.Errorf("AccessDenied")
	p2, _ := newTestProvider(t, f, func(c *Config) { c.StaticInstanceList = false })
	if g := groupsByID(t, p2)["custom"]; len(g.Template.InstanceTypes) != 0 {
		t.Fatalf("x9.custom resolved without the API: %+v", g)
	}
}

func TestNodeGroupsBoundsAndDiscovery(t *testing.T) {
	f := newFake()
	f.templates["lt"] = map[string]string{"$Default": "m5.large"}
	f.addGroup("discovered", 1, 10, 1, enabled, withTemplate("lt", ""))
	f.addGroup("narrowed", 1, 10, 2, map[string]string{"team": "a"}, withTemplate("lt", ""))
	f.addGroup("both", 0, 10, 0, map[string]string{"team": "a", "k8s.io/cluster-autoscaler/enabled": ""}, withTemplate("lt", ""))
	f.addGroup("untagged", 0, 10, 0, nil, withTemplate("lt", ""))
	f.addGroup("disjoint", 0, 2, 0, nil, withTemplate("lt", ""))
	second, err := ParseDiscovery("asg:tag=team=a")
	if err != nil {
		t.Fatal(err)
	}
	p, _ := newTestProvider(t, f, func(c *Config) {
		c.Discovery = append(c.Discovery, second)
		c.Static = []nodegroupspec.Static{{Min: 0, Max: 4, Name: "narrowed"}, {Min: 3, Max: 5, Name: "disjoint"}, {Min: 0, Max: 1, Name: "missing"}}
	})
	groups := groupsByID(t, p)
	var got []string
	for id, g := range groups {
		got = append(got, fmt.Sprintf("%s:%d-%d/%d", id, g.MinSize, g.MaxSize, g.TargetSize))
	}
	want := map[string]bool{"discovered:1-10/1": true, "narrowed:1-4/2": true, "both:0-10/0": true}
	if len(got) != len(want) {
		t.Fatalf("groups %v, want %v", got, want)
	}
	for _, g := range got {
		if !want[g] {
			t.Errorf("group %s, want one of %v", g, want)
		}
	}
}

func TestRefreshInterval(t *testing.T) {
	f := newFake()
	f.templates["lt"] = map[string]string{"$Default": "m5.large"}
	f.addGroup("g", 0, 10, 2, enabled, withTemplate("lt", ""))
	p, clk := newTestProvider(t, f, func(c *Config) { c.RefreshInterval = time.Minute })
	for range 3 {
		groupsByID(t, p)
	}
	if n := f.count("DescribeAutoScalingGroups"); n != 1 {
		t.Fatalf("%d describes within the interval, want 1", n)
	}
	clk.SetTime(t0.Add(time.Minute))
	groupsByID(t, p)
	if n := f.count("DescribeAutoScalingGroups"); n != 2 {
		t.Fatalf("%d describes after the interval, want 2", n)
	}
	if err := p.DeleteInstances(testCtx(t), "g", []string{"g-i0"}); err != nil {
		t.Fatal(err)
	}
	groupsByID(t, p)
	if n := f.count("DescribeAutoScalingGroups"); n != 3 {
		t.Fatalf("%d describes after a deletion, want 3 (forced)", n)
	}
	f.fail["DescribeAutoScalingGroups"] = fmt.Errorf("Throttling")
	p.stale = true
	if err := p.Refresh(testCtx(t)); !cloudprovider.IsAPIError(err) {
		t.Fatalf("refresh error %v, want an APIError", err)
	}
	if gs, _ := p.NodeGroups(testCtx(t)); len(gs) != 1 {
		t.Fatalf("a failed refresh dropped the groups: %v", gs)
	}
}

func TestScaleUpPlaceholdersAndFailures(t *testing.T) {
	f := newFake()
	f.templates["lt"] = map[string]string{"$Default": "m5.large"}
	f.addGroup("g", 0, 5, 1, enabled, withTemplate("lt", ""))
	f.addActivity("g", "old-failure", t0.Add(-time.Hour), astypes.ScalingActivityStatusCodeFailed, "InsufficientInstanceCapacity long ago")
	p, _ := newTestProvider(t, f, nil)
	groupsByID(t, p)
	if err := p.IncreaseSize(testCtx(t), "g", 2); err != nil {
		t.Fatal(err)
	}
	insts := instances(t, p, "g")
	if got := describe(insts); got != "g-i0:running i-placeholder-g-1:creating+ i-placeholder-g-2:creating+" {
		t.Fatalf("instances %s", got)
	}
	if insts[1].ProviderID != "aws:///eu-central-1a/i-placeholder-g-1" || insts[0].ProviderID != "aws:///eu-central-1a/g-i0" {
		t.Errorf("provider ids %s, %s", insts[0].ProviderID, insts[1].ProviderID)
	}
	// The old failure is history; a successful launch is not a failure.
	f.addActivity("g", "ok", t0.Add(time.Second), astypes.ScalingActivityStatusCodeSuccessful, "")
	groupsByID(t, p)
	if insts := instances(t, p, "g"); insts[1].Error != nil {
		t.Fatalf("placeholder error %+v before any failure", insts[1].Error)
	}
	f.addActivity("g", "stockout", t0.Add(2*time.Second), astypes.ScalingActivityStatusCodeFailed,
		"We currently do not have sufficient m5.large capacity in the Availability Zone you requested (eu-central-1a).")
	groupsByID(t, p)
	insts = instances(t, p, "g")
	for _, in := range insts[1:] {
		if in.Error == nil || in.Error.Class != cloudprovider.ErrorOutOfResources || in.Error.Code != "Failed" || !strings.Contains(in.Error.Message, "sufficient") {
			t.Fatalf("placeholder %s error %+v", in.ID, in.Error)
		}
	}
	f.addActivity("g", "cancelled", t0.Add(3*time.Second), astypes.ScalingActivityStatusCodeCancelled, "Launch cancelled by a lifecycle hook")
	groupsByID(t, p)
	if e := instances(t, p, "g")[2].Error; e == nil || e.Code != "Cancelled" || e.Class != cloudprovider.ErrorOther {
		t.Fatalf("after a cancelled activity: %+v", e)
	}
	// The sentinel: deleting one placeholder lowers the desired capacity by one.
	if err := p.DeleteInstances(testCtx(t), "g", []string{"i-placeholder-g-2"}); err != nil {
		t.Fatal(err)
	}
	if got := describe(instances(t, p, "g")); got != "g-i0:running i-placeholder-g-1:creating+!" {
		t.Fatalf("after deleting a placeholder: %s", got)
	}
	if d := *f.find("g").DesiredCapacity; d != 2 {
		t.Fatalf("desired %d, want 2", d)
	}
	// Once the group is not short any more, its tracking ends.
	if err := p.DeleteInstances(testCtx(t), "g", []string{"i-placeholder-g-1"}); err != nil {
		t.Fatal(err)
	}
	groupsByID(t, p)
	if _, ok := p.scaleUps["g"]; ok {
		t.Fatal("tracking kept for a group that is not short")
	}
}

func TestDeleteAndDecrease(t *testing.T) {
	f := newFake()
	f.templates["lt"] = map[string]string{"$Default": "m5.large"}
	f.addGroup("g", 1, 5, 3, enabled, withTemplate("lt", ""))
	p, _ := newTestProvider(t, f, nil)
	groupsByID(t, p)
	if err := p.DeleteInstances(testCtx(t), "g", []string{"g-i0", "g-i1"}); err != nil {
		t.Fatal(err)
	}
	if got := describe(instances(t, p, "g")); got != "g-i0:deleting g-i1:deleting g-i2:running" {
		t.Fatalf("after deleting: %s", got)
	}
	if n := f.count("TerminateInstanceInAutoScalingGroup"); n != 2 || *f.find("g").DesiredCapacity != 1 {
		t.Fatalf("%d terminations, desired %d", n, *f.find("g").DesiredCapacity)
	}
	if err := p.DeleteInstances(testCtx(t), "g", []string{"g-i0"}); err != nil {
		t.Fatalf("deleting a terminating instance again: %v", err)
	}
	if n := f.count("TerminateInstanceInAutoScalingGroup"); n != 2 {
		t.Fatalf("a terminating instance was terminated again")
	}
	groupsByID(t, p)
	if err := p.IncreaseSize(testCtx(t), "g", 1); err != nil {
		t.Fatal(err)
	}
	if err := p.DecreaseTargetSize(testCtx(t), "g", 1); err != nil {
		t.Fatal(err)
	}
}

func instances(t *testing.T, p *Provider, g string) []cloudprovider.Instance {
	t.Helper()
	insts, err := p.Instances(testCtx(t), g)
	if err != nil {
		t.Fatal(err)
	}
	return insts
}

// describe renders instances as id:state, + for a placeholder, ! for an error.
func describe(insts []cloudprovider.Instance) string {
	parts := make([]string, len(insts))
	for i, in := range insts {
		parts[i] = in.ID + ":" + string(in.State)
		if in.Placeholder {
			parts[i] += "+"
		}
		if in.Error != nil {
			parts[i] += "!"
		}
	}
	return strings.Join(parts, " ")
}

// testCtx carries a logger that writes to the test's log.
func testCtx(t *testing.T) context.Context {
	_, ctx := ktesting.NewTestContext(t)
	return ctx
}
