package externalgrpc_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/externalgrpc"
	"github.com/kscale/kscale/internal/cloudprovider/externalgrpc/externalgrpctest"
	"github.com/kscale/kscale/internal/cloudprovider/inmemory"
)

// pricedPod is a pod with one container's requests.
func pricedPod(name, cpu, mem string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name)},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}}}}}}
}

// pricedEnv serves two priced groups: ng-1 (m5.xlarge, 4 CPUs and 16Gi at
// 0.2 an hour) and ng-2 (m5.2xlarge, 8 CPUs and 32Gi at 0.3), to a
// provider that asks prices when prices is set.
func pricedEnv(t *testing.T, prices bool, timeout string) (*externalgrpctest.Server, *externalgrpc.Provider) {
	t.Helper()
	cloud, clk := newCloud(t)
	it, err := inmemory.LookupInstanceType("m5.2xlarge")
	if err != nil {
		t.Fatal(err)
	}
	if err := cloud.AddGroup(inmemory.GroupConfig{ID: "ng-2", MaxSize: 3, BootTime: time.Minute, Capacity: inmemory.Unlimited,
		Template: cloudprovider.Template{InstanceTypes: []cloudprovider.InstanceType{it}, Zones: []string{"eu-1a"}, Region: "eu-1", PricePerHour: 0.3}}); err != nil {
		t.Fatal(err)
	}
	srv := externalgrpctest.New(cloud, "")
	p, err := connectWith(t, &externalgrpc.CloudConfig{Address: srv.Start(t, nil), GRPCTimeout: timeout},
		func(c *externalgrpc.Config) { c.Prices, c.Clock = prices, clk })
	if err != nil {
		t.Fatal(err)
	}
	return srv, p
}

// groupPrices refreshes and returns each group's template price.
func groupPrices(t *testing.T, p *externalgrpc.Provider) map[string]float64 {
	t.Helper()
	if err := p.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	groups, err := p.NodeGroups(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, g := range groups {
		out[g.ID] = g.Template.PricePerHour
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestPricesFromTheServer(t *testing.T) {
	srv, p := pricedEnv(t, true, "")
	if got := groupPrices(t, p); !near(got["ng-1"], 0.2) || !near(got["ng-2"], 0.3) {
		t.Errorf("template prices %v, want ng-1 0.2 and ng-2 0.3 (the server's pricePerHour)", got)
	}
	// 1 CPU and 2Gi: a quarter of ng-1's node (0.05), an eighth of
	// ng-2's (0.0375); the server answers the cheaper share.
	pod := pricedPod("web-1", "1", "2Gi")
	for range 2 {
		if price, err := p.PodPrice(t.Context(), pod); err != nil || !near(price, 0.0375) {
			t.Fatalf("pod price %v, err = %v, want 0.0375", price, err)
		}
	}
	if n := srv.Calls("PricingPodPrice"); n != 1 {
		t.Errorf("%d PricingPodPrice calls for one pod asked twice in a loop, want 1", n)
	}
	groupPrices(t, p)
	if _, err := p.PodPrice(t.Context(), pod); err != nil {
		t.Fatal(err)
	}
	if n := srv.Calls("PricingPodPrice"); n != 2 {
		t.Errorf("%d PricingPodPrice calls after a new loop, want 2 (asked again)", n)
	}
}

func TestNoPriceCallsWithoutThePriceExpander(t *testing.T) {
	srv, p := pricedEnv(t, false, "")
	if got := groupPrices(t, p); got["ng-1"] != 0 || got["ng-2"] != 0 {
		t.Errorf("template prices %v, want none", got)
	}
	if n := srv.Calls("PricingNodePrice"); n != 0 {
		t.Errorf("%d PricingNodePrice calls, want none", n)
	}
}

// TestPricingFailures: Unimplemented, a hanging server and a failing one.
// A call that shows pricing is down for the loop (Unimplemented, a
// timeout) ends pricing calls until the next Refresh; an error about one
// node or pod concerns that call only. Refresh never fails for a price.
func TestPricingFailures(t *testing.T) {
	tests := []struct {
		name  string
		fault externalgrpctest.Fault
		// calls are the pricing calls of a loop that prices two groups
		// and two pods: a node price call that ends pricing ends it for
		// the pods too.
		nodeCalls, podCalls int
	}{
		{"unimplemented", externalgrpctest.Fault{Err: status.Error(codes.Unimplemented, "no pricing")}, 1, 0},
		{"hanging", externalgrpctest.Fault{Hang: true}, 1, 0},
		{"failing", externalgrpctest.Fault{Err: status.Error(codes.Internal, "cannot price")}, 2, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, p := pricedEnv(t, true, "200ms")
			srv.SetFault("PricingNodePrice", tt.fault)
			srv.SetFault("PricingPodPrice", tt.fault)
			if got := groupPrices(t, p); got["ng-1"] != 0 || got["ng-2"] != 0 {
				t.Errorf("template prices %v, want none", got)
			}
			if n := srv.Calls("PricingNodePrice"); n != tt.nodeCalls {
				t.Errorf("%d PricingNodePrice calls, want %d", n, tt.nodeCalls)
			}
			for _, pod := range []*corev1.Pod{pricedPod("a", "1", "1Gi"), pricedPod("b", "1", "1Gi")} {
				_, err := p.PodPrice(t.Context(), pod)
				if !cloudprovider.IsAPIError(err) {
					t.Errorf("pod %s: err = %v (%T), want an API error", pod.Name, err, err)
				}
			}
			if n := srv.Calls("PricingPodPrice"); n != tt.podCalls {
				t.Errorf("%d PricingPodPrice calls, want %d", n, tt.podCalls)
			}
			// The fault cleared, the next loop prices again.
			srv.SetFault("PricingNodePrice", externalgrpctest.Fault{})
			if got := groupPrices(t, p); !near(got["ng-1"], 0.2) {
				t.Errorf("template prices after the fault %v, want ng-1 0.2", got)
			}
		})
	}
}

// TestPodPriceWhilePricingIsDown: node prices work, pod prices do not; the
// first pod's call fails with its own error, the next pod's fails at once.
func TestPodPriceWhilePricingIsDown(t *testing.T) {
	tests := []struct {
		name  string
		fault externalgrpctest.Fault
		code  codes.Code
	}{
		{"unimplemented", externalgrpctest.Fault{Err: status.Error(codes.Unimplemented, "no pod prices")}, codes.Unimplemented},
		{"hanging", externalgrpctest.Fault{Hang: true}, codes.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, p := pricedEnv(t, true, "200ms")
			srv.SetFault("PricingPodPrice", tt.fault)
			if got := groupPrices(t, p); !near(got["ng-1"], 0.2) {
				t.Errorf("template prices %v, want ng-1 0.2", got)
			}
			if _, err := p.PodPrice(t.Context(), pricedPod("a", "1", "1Gi")); status.Code(err) != tt.code {
				t.Fatalf("err = %v, want the call's %s", err, tt.code)
			}
			_, err := p.PodPrice(t.Context(), pricedPod("b", "1", "1Gi"))
			if down := (*externalgrpc.PricingUnavailableError)(nil); !errors.As(err, &down) {
				t.Fatalf("err = %v (%T), want *PricingUnavailableError", err, err)
			}
			if n := srv.Calls("PricingPodPrice"); n != 1 {
				t.Errorf("%d PricingPodPrice calls, want 1", n)
			}
		})
	}
}
