package externalgrpc_test

import (
	"crypto/tls"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/externalgrpc"
	"github.com/kscale/kscale/internal/cloudprovider/externalgrpc/externalgrpctest"
	"github.com/kscale/kscale/internal/cloudprovider/externalgrpc/protos"
	"github.com/kscale/kscale/internal/cloudprovider/inmemory"
	"github.com/kscale/kscale/internal/custommetrics/testpki"
)

// env is an in-memory cloud served over the protocol and a provider
// connected to it.
type env struct {
	cloud    *inmemory.Cloud
	clock    *clocktesting.FakeClock
	server   *externalgrpctest.Server
	provider *externalgrpc.Provider
}

func newCloud(t *testing.T) (*inmemory.Cloud, *clocktesting.FakeClock) {
	t.Helper()
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	cloud := inmemory.New(clk)
	it, err := inmemory.LookupInstanceType("m5.xlarge")
	if err != nil {
		t.Fatal(err)
	}
	threshold := 0.3
	if err := cloud.AddGroup(inmemory.GroupConfig{ID: "ng-1", MaxSize: 3, TargetSize: 1, BootTime: time.Minute, Capacity: inmemory.Unlimited,
		Template: cloudprovider.Template{InstanceTypes: []cloudprovider.InstanceType{it}, Zones: []string{"eu-1a"}, Region: "eu-1", PricePerHour: 0.2,
			Tags:   map[string]string{cloudprovider.TagLabelPrefix + "pool": "blue"},
			Taints: []corev1.Taint{{Key: "dedicated", Value: "blue", Effect: corev1.TaintEffectNoSchedule}}},
		Options: cloudprovider.Options{ScaleDownUtilizationThreshold: &threshold}}); err != nil {
		t.Fatal(err)
	}
	return cloud, clk
}

// connect returns a provider for the cloud config written to a file.
func connect(t *testing.T, cc *externalgrpc.CloudConfig) (*externalgrpc.Provider, error) {
	t.Helper()
	return connectWith(t, cc, func(*externalgrpc.Config) {})
}

// connectWith is connect with the provider's config changed by edit.
func connectWith(t *testing.T, cc *externalgrpc.CloudConfig, edit func(*externalgrpc.Config)) (*externalgrpc.Provider, error) {
	t.Helper()
	conn, err := externalgrpc.Dial(cc)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { _ = conn.Close() })
	cfg := externalgrpc.Config{Client: protos.NewCloudProviderClient(conn), Timeout: cc.Timeout(),
		Defaults: externalgrpc.Defaults{ScaleDownUtilizationThreshold: 0.5, ScaleDownUnneededTime: 10 * time.Minute}}
	edit(&cfg)
	return externalgrpc.New(cfg)
}

func newEnv(t *testing.T) *env {
	t.Helper()
	cloud, clk := newCloud(t)
	srv := externalgrpctest.New(cloud, "gpu.example.com/accelerator")
	p, err := connect(t, &externalgrpc.CloudConfig{Address: srv.Start(t, nil)})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	return &env{cloud: cloud, clock: clk, server: srv, provider: p}
}

// counts returns the group's target and its instances by state, with
// placeholders apart.
func (e *env) counts(t *testing.T) (target int, byState map[string]int) {
	t.Helper()
	groups, err := e.provider.NodeGroups(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	insts, err := e.provider.Instances(t.Context(), "ng-1")
	if err != nil {
		t.Fatal(err)
	}
	byState = map[string]int{}
	for _, in := range insts {
		k := string(in.State)
		if in.Placeholder {
			k = "placeholder"
		}
		byState[k]++
	}
	return groups[0].TargetSize, byState
}

func TestNodeGroupTemplateAndOptions(t *testing.T) {
	e := newEnv(t)
	groups, err := e.provider.NodeGroups(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != 1 {
		t.Fatalf("groups = %+v, want one", groups)
	}
	g := groups[0]
	if g.ID != "ng-1" || g.MinSize != 0 || g.MaxSize != 3 || g.TargetSize != 1 {
		t.Errorf("group = %s [%d, %d] target %d, want ng-1 [0, 3] target 1", g.ID, g.MinSize, g.MaxSize, g.TargetSize)
	}
	it := g.Template.InstanceTypes[0]
	if it.Name != "m5.xlarge" || !it.Capacity.Cpu().Equal(resource.MustParse("4")) || !it.Capacity.Memory().Equal(resource.MustParse("16Gi")) {
		t.Errorf("instance type = %s %v, want m5.xlarge with 4 CPUs and 16Gi", it.Name, it.Capacity)
	}
	if got := g.Template.Tags[cloudprovider.TagLabelPrefix+"pool"]; got != "blue" {
		t.Errorf("pool label tag = %q, want blue", got)
	}
	if len(g.Template.Zones) != 1 || g.Template.Zones[0] != "eu-1a" || g.Template.Region != "eu-1" {
		t.Errorf("zones %v region %q, want [eu-1a] eu-1", g.Template.Zones, g.Template.Region)
	}
	if len(g.Template.Taints) != 1 || g.Template.Taints[0].Key != "dedicated" {
		t.Errorf("taints = %v, want dedicated", g.Template.Taints)
	}
	if o := g.Options; o.ScaleDownUtilizationThreshold == nil || *o.ScaleDownUtilizationThreshold != 0.3 || o.ScaleDownUnneededTime != nil {
		t.Errorf("options = %+v, want only the threshold 0.3 (the rest are the defaults)", o)
	}
	label, err := e.provider.GPULabel(t.Context())
	if err != nil || label != "gpu.example.com/accelerator" {
		t.Errorf("GPU label = %q, %v", label, err)
	}
}

func TestScaleUpAndDown(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	if err := e.provider.IncreaseSize(ctx, "ng-1", 2); err != nil {
		t.Fatal(err)
	}
	if target, by := e.counts(t); target != 3 || by[string(cloudprovider.InstanceCreating)] != 3 {
		t.Fatalf("after +2: target %d, instances %v; want 3 creating", target, by)
	}
	if err := e.provider.IncreaseSize(ctx, "ng-1", 1); !cloudprovider.IsSizeError(err) {
		t.Errorf("increase above max: err = %v, want a SizeError", err)
	}
	e.clock.Step(2 * time.Minute)
	insts, err := e.provider.Instances(ctx, "ng-1")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.provider.DeleteInstances(ctx, "ng-1", []string{insts[0].ID}); err != nil {
		t.Fatal(err)
	}
	if target, by := e.counts(t); target != 2 || by[string(cloudprovider.InstanceRunning)] != 2 {
		t.Fatalf("after deleting one: target %d, instances %v; want 2 running", target, by)
	}
	if got := e.server.Deleted(); len(got) != 1 || got[0].GetProviderID() != insts[0].ProviderID {
		t.Errorf("server deleted %v, want %s", got, insts[0].ProviderID)
	}
	if err := e.provider.DecreaseTargetSize(ctx, "ng-1", 1); !cloudprovider.IsSizeError(err) {
		t.Errorf("decrease below live: err = %v, want a SizeError", err)
	}
}

func TestPlaceholders(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	e.server.HidePlaceholders()
	// A cloud without capacity leaves the request as placeholders, which
	// the client makes when the server lists only real machines.
	if err := e.cloud.UpdateGroup("ng-1", func(c *inmemory.GroupConfig) { c.Capacity = 0 }); err != nil {
		t.Fatal(err)
	}
	if err := e.provider.IncreaseSize(ctx, "ng-1", 2); err != nil {
		t.Fatal(err)
	}
	insts, err := e.provider.Instances(ctx, "ng-1")
	if err != nil {
		t.Fatal(err)
	}
	var placeholders []string
	for _, in := range insts {
		if in.Placeholder {
			placeholders = append(placeholders, in.ID)
		}
	}
	if len(placeholders) != 2 {
		t.Fatalf("instances = %+v, want 2 placeholders", insts)
	}
	if err := e.provider.DeleteInstances(ctx, "ng-1", placeholders[:1]); err != nil {
		t.Fatal(err)
	}
	if err := e.provider.DecreaseTargetSize(ctx, "ng-1", 1); err != nil {
		t.Fatal(err)
	}
	if target, by := e.counts(t); target != 1 || by["placeholder"] != 0 {
		t.Errorf("after dropping both placeholders: target %d, instances %v; want 1 and none", target, by)
	}
	if n := len(e.server.Deleted()); n != 0 {
		t.Errorf("server was asked to delete %d nodes for placeholders, want 0", n)
	}
}

func TestFaults(t *testing.T) {
	tests := []struct {
		name   string
		method string
		fault  externalgrpctest.Fault
		run    func(*testing.T, *externalgrpc.Provider) error
		check  func(error) bool
	}{
		{"hanging call times out", "NodeGroupIncreaseSize", externalgrpctest.Fault{Hang: true},
			func(t *testing.T, p *externalgrpc.Provider) error { return p.IncreaseSize(t.Context(), "ng-1", 1) },
			func(err error) bool {
				return cloudprovider.IsAPIError(err) && status.Code(err) == codes.DeadlineExceeded
			}},
		{"failing call is an API error", "NodeGroupNodes", externalgrpctest.Fault{Err: status.Error(codes.Unavailable, "down")},
			func(t *testing.T, p *externalgrpc.Provider) error {
				_, err := p.Instances(t.Context(), "ng-1")
				return err
			},
			func(err error) bool { return cloudprovider.IsAPIError(err) && status.Code(err) == codes.Unavailable }},
		{"failing refresh", "Refresh", externalgrpctest.Fault{Err: status.Error(codes.Internal, "boom")},
			func(t *testing.T, p *externalgrpc.Provider) error { return p.Refresh(t.Context()) },
			cloudprovider.IsAPIError},
		{"not found", "NodeGroupDeleteNodes", externalgrpctest.Fault{Err: status.Error(codes.NotFound, "gone")},
			func(t *testing.T, p *externalgrpc.Provider) error {
				return p.DeleteInstances(t.Context(), "ng-1", []string{inmemory.ProviderID("ng-1", "x")})
			},
			cloudprovider.IsNotFound},
		{"unknown group", "",
			externalgrpctest.Fault{}, func(t *testing.T, p *externalgrpc.Provider) error { return p.IncreaseSize(t.Context(), "nope", 1) },
			cloudprovider.IsNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cloud, _ := newCloud(t)
			srv := externalgrpctest.New(cloud, "")
			p, err := connect(t, &externalgrpc.CloudConfig{Address: srv.Start(t, nil), GRPCTimeout: "200ms"})
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Refresh(t.Context()); err != nil {
				t.Fatal(err)
			}
			if tt.method != "" {
				srv.SetFault(tt.method, tt.fault)
			}
			if err := tt.run(t, p); !tt.check(err) {
				t.Errorf("err = %v (%T)", err, err)
			}
		})
	}
}

func TestOptionalCallsUnimplemented(t *testing.T) {
	cloud, _ := newCloud(t)
	srv := externalgrpctest.New(cloud, "")
	for _, m := range []string{"NodeGroupTemplateNodeInfo", "NodeGroupGetOptions"} {
		srv.SetFault(m, externalgrpctest.Fault{Err: status.Error(codes.Unimplemented, "not here")})
	}
	p, err := connect(t, &externalgrpc.CloudConfig{Address: srv.Start(t, nil)})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	groups, err := p.NodeGroups(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	g := groups[0]
	if g.Template.UnavailableReason == "" || len(g.Template.InstanceTypes) != 0 {
		t.Errorf("template = %+v, want unavailable", g.Template)
	}
	if g.Options.Set() || g.OptionsInvalid != "" {
		t.Errorf("options = %+v (%s), want none", g.Options, g.OptionsInvalid)
	}
}

func TestMutualTLS(t *testing.T) {
	ca, other := testpki.NewCA(t, "provider-ca"), testpki.NewCA(t, "other-ca")
	dir := t.TempDir()
	write := func(name string, data []byte) string { return testpki.WriteFile(t, dir, name, data) }
	serverCert := ca.Serving(t, []string{"localhost"}, nil)
	cert, key := ca.ClientPEM(t, "kscale")
	otherCert, otherKey := other.ClientPEM(t, "intruder")
	cloud, _ := newCloud(t)
	srv := externalgrpctest.New(cloud, "")
	addr := srv.Start(t, &tls.Config{Certificates: []tls.Certificate{serverCert}, ClientCAs: ca.Pool(),
		ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12})
	_, port, _ := strings.Cut(addr, ":")
	addr = "localhost:" + port
	tests := []struct {
		name string
		cc   externalgrpc.CloudConfig
		ok   bool
	}{
		{"mutual TLS", externalgrpc.CloudConfig{Address: addr, Cert: write("c.pem", cert), Key: write("k.pem", key), Cacert: write("ca.pem", ca.PEM)}, true},
		{"client cert of another CA", externalgrpc.CloudConfig{Address: addr, Cert: write("oc.pem", otherCert), Key: write("ok.pem", otherKey),
			Cacert: write("ca2.pem", ca.PEM)}, false},
		{"server not trusted", externalgrpc.CloudConfig{Address: addr, Cert: write("c3.pem", cert), Key: write("k3.pem", key),
			Cacert: write("other.pem", other.PEM)}, false},
		{"plain text", externalgrpc.CloudConfig{Address: addr}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cc.GRPCTimeout = "2s"
			p, err := connectWith(t, &tt.cc, func(c *externalgrpc.Config) { c.Prices = true })
			if err != nil {
				t.Fatal(err)
			}
			err = p.Refresh(t.Context())
			if (err == nil) != tt.ok {
				t.Errorf("refresh err = %v, want success %v", err, tt.ok)
			}
			// Prices travel over the same connection: asked over mutual
			// TLS, refused with it.
			price, err := p.PodPrice(t.Context(), pricedPod("web-1", "1", "2Gi"))
			if (err == nil) != tt.ok || (tt.ok && price <= 0) {
				t.Errorf("pod price %v, err = %v, want success %v", price, err, tt.ok)
			}
		})
	}
}

func TestNew(t *testing.T) {
	if _, err := externalgrpc.New(externalgrpc.Config{}); err == nil {
		t.Error("New without a client: want an error")
	}
}
