package aws_test

import (
	"context"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"k8s.io/klog/v2/ktesting"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/aws"
	"github.com/kscale/kscale/internal/cloudprovider/aws/awstest"
	"github.com/kscale/kscale/internal/cloudprovider/nodegroupspec"
	"github.com/kscale/kscale/internal/cloudprovider/nodetemplate"
)

const stockoutMessage = "We currently do not have sufficient m6g.large capacity in the Availability Zone you requested (eu-central-1a). " +
	"Our system will be working on provisioning additional capacity. Launching EC2 instance failed."

// TestProviderAgainstMoto drives the provider through the real SDK and
// wire protocol against moto, with the fault-injecting proxy for what
// moto does not emulate.
func TestProviderAgainstMoto(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	moto := awstest.StartMoto(t)
	proxy := awstest.StartProxy(t, moto.URL)
	seed := awstest.NewSeeder(t, moto.URL)
	seed.LaunchTemplate("general", "m5.large")
	seed.LaunchTemplate("graviton", "m6g.large")
	seed.LaunchConfiguration("legacy", "c5.xlarge")
	tags := func(extra ...string) map[string]string {
		m := map[string]string{"k8s.io/cluster-autoscaler/enabled": "true", "k8s.io/cluster-autoscaler/prod": "owned"}
		for i := 0; i < len(extra); i += 2 {
			m[extra[i]] = extra[i+1]
		}
		return m
	}
	seed.Group(awstest.Group{Name: "general", Max: 5, Template: "general",
		Tags: tags(cloudprovider.TagLabelPrefix+"pool", "general", cloudprovider.TagTaintPrefix+"dedicated", "general:NoSchedule")})
	seed.Group(awstest.Group{Name: "graviton", Max: 3, Template: "graviton", Tags: tags()})
	seed.Group(awstest.Group{Name: "mixed", Max: 3, Template: "general", Overrides: []string{"c4.xlarge", "r4.large"}, Tags: tags()})
	seed.Group(awstest.Group{Name: "legacy", Max: 2, Config: "legacy"})
	seed.Group(awstest.Group{Name: "other-cluster", Max: 2, Template: "general", Tags: map[string]string{"k8s.io/cluster-autoscaler/enabled": "true"}})

	reg := prometheus.NewRegistry()
	clients, err := aws.NewClients(ctx, aws.ClientConfig{Registerer: reg, LoadOptions: awstest.LoadOptions(proxy.URL)})
	if err != nil {
		t.Fatal(err)
	}
	disc, err := aws.ParseDiscovery("asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/prod")
	if err != nil {
		t.Fatal(err)
	}
	p, err := aws.New(aws.Config{AutoScaling: clients.AutoScaling, EC2: clients.EC2, EKS: clients.EKS, Region: clients.Region,
		Static: []nodegroupspec.Static{{Min: 0, Max: 1, Name: "legacy"}}, Discovery: []aws.Discovery{disc}})
	if err != nil {
		t.Fatal(err)
	}

	groups := refresh(ctx, t, p)
	t.Run("groups and templates come from the ASGs", func(t *testing.T) {
		want := map[string]struct {
			max        int
			cpu, arch  string
			label, typ string
		}{
			"general":  {max: 5, cpu: "2", arch: "amd64", label: "general", typ: "m5.large"},
			"graviton": {max: 3, cpu: "2", arch: "arm64", typ: "m6g.large"},
			"mixed":    {max: 3, cpu: "2", arch: "amd64", typ: nodetemplate.MultipleTypes},
			"legacy":   {max: 1, cpu: "4", arch: "amd64", typ: "c5.xlarge"},
		}
		if len(groups) != len(want) {
			t.Fatalf("groups %v, want %d", keys(groups), len(want))
		}
		for id, w := range want {
			g := groups[id]
			n, err := nodetemplate.FromProvider(g, nodetemplate.NewEstimator(), nil)
			if err != nil {
				t.Fatalf("%s: %v", id, err)
			}
			if g.MaxSize != w.max || n.Status.Capacity.Cpu().String() != w.cpu || n.Labels[nodetemplate.LabelArch] != w.arch ||
				n.Labels["pool"] != w.label || n.Labels[nodetemplate.LabelInstanceType] != w.typ || n.Labels[nodetemplate.LabelZone] != awstest.Zones[0] {
				t.Errorf("%s: max %d, capacity %v, labels %v", id, g.MaxSize, n.Status.Capacity, n.Labels)
			}
		}
	})
	t.Run("scale up and down through the ASG", func(t *testing.T) {
		if err := p.IncreaseSize(ctx, "general", 2); err != nil {
			t.Fatal(err)
		}
		refresh(ctx, t, p)
		insts := instancesOf(ctx, t, p, "general")
		if len(insts) != 2 {
			t.Fatalf("instances %+v, want 2 launched", insts)
		}
		for _, in := range insts {
			if in.Placeholder || in.State != cloudprovider.InstanceRunning || !strings.HasPrefix(in.ProviderID, "aws:///"+awstest.Region) ||
				!strings.HasSuffix(in.ProviderID, "/"+in.ID) {
				t.Errorf("instance %+v", in)
			}
		}
		if err := p.DeleteInstances(ctx, "general", []string{insts[0].ID}); err != nil {
			t.Fatal(err)
		}
		refresh(ctx, t, p)
		if got := instancesOf(ctx, t, p, "general"); len(got) != 1 || got[0].ID != insts[1].ID {
			t.Fatalf("after terminating %s: %+v", insts[0].ID, got)
		}
		if d := seed.Describe("general").DesiredCapacity; *d != 1 {
			t.Errorf("moto desired capacity %d, want 1 (ShouldDecrementDesiredCapacity)", *d)
		}
	})
	t.Run("a stocked-out group reports failed placeholders", func(t *testing.T) {
		proxy.StockOut("graviton", 0, stockoutMessage)
		if err := p.IncreaseSize(ctx, "graviton", 2); err != nil {
			t.Fatal(err)
		}
		groups := refresh(ctx, t, p)
		if groups["graviton"].TargetSize != 2 {
			t.Fatalf("target size %d, want 2", groups["graviton"].TargetSize)
		}
		insts := instancesOf(ctx, t, p, "graviton")
		if len(insts) != 2 {
			t.Fatalf("instances %+v", insts)
		}
		for i, in := range insts {
			if !in.Placeholder || in.Error == nil || in.Error.Class != cloudprovider.ErrorOutOfResources || in.Error.Code != "Failed" ||
				in.Error.Message != stockoutMessage || in.ProviderID != "aws:///"+awstest.Zones[0]+"/i-placeholder-graviton-"+string(rune('0'+i)) {
				t.Errorf("placeholder %+v error %+v", in, in.Error)
			}
		}
		if err := p.DeleteInstances(ctx, "graviton", []string{insts[1].ID}); err != nil {
			t.Fatal(err)
		}
		refresh(ctx, t, p)
		if got := instancesOf(ctx, t, p, "graviton"); len(got) != 1 || got[0].Error == nil || proxy.Desired("graviton") != 1 {
			t.Fatalf("after deleting one placeholder: %+v, desired %d", got, proxy.Desired("graviton"))
		}
	})
	t.Run("throttling is retried and counted", func(t *testing.T) {
		proxy.Throttle("DescribeAutoScalingGroups", 2)
		refresh(ctx, t, p)
		if got := count(t, reg, "DescribeAutoScalingGroups", "Throttling"); got != 2 {
			t.Errorf("%v throttled DescribeAutoScalingGroups requests counted, want 2", got)
		}
		proxy.Throttle("SetDesiredCapacity", 10)
		if err := p.IncreaseSize(ctx, "general", 1); !cloudprovider.IsAPIError(err) || !strings.Contains(err.Error(), "Throttling") {
			t.Errorf("IncreaseSize while throttled: %v", err)
		}
		if got := count(t, reg, "SetDesiredCapacity", "success"); got < 2 {
			t.Errorf("%v successful SetDesiredCapacity requests counted", got)
		}
	})
}

func refresh(ctx context.Context, t *testing.T, p *aws.Provider) map[string]cloudprovider.NodeGroup {
	t.Helper()
	if err := p.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	gs, err := p.NodeGroups(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]cloudprovider.NodeGroup{}
	for _, g := range gs {
		out[g.ID] = g
	}
	return out
}

func instancesOf(ctx context.Context, t *testing.T, p *aws.Provider, g string) []cloudprovider.Instance {
	t.Helper()
	insts, err := p.Instances(ctx, g)
	if err != nil {
		t.Fatal(err)
	}
	return insts
}

func keys(m map[string]cloudprovider.NodeGroup) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// count reads the request histogram's sample count of one series.
func count(t *testing.T, reg *prometheus.Registry, endpoint, status string) uint64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "cluster_autoscaler_aws_request_duration_seconds" {
			continue
		}
		for _, m := range mf.GetMetric() {
			if label(m, "endpoint") == endpoint && label(m, "status") == status {
				return m.GetHistogram().GetSampleCount()
			}
		}
	}
	return 0
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}
