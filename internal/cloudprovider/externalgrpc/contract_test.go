package externalgrpc_test

import (
	"errors"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/externalgrpc"
	"github.com/kscale/kscale/internal/cloudprovider/externalgrpc/externalgrpctest"
	"github.com/kscale/kscale/internal/cloudprovider/inmemory"
	"github.com/kscale/kscale/internal/cloudprovider/providertest"
)

// TestContract runs the provider contract suite on the externalgrpc
// provider, its back-end the in-memory cloud behind a server of ours.
func TestContract(t *testing.T) {
	providertest.Run(t, providertest.Harness{Start: func(t *testing.T) *providertest.Backend {
		c := inmemory.New(clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
		entry := inmemory.NodeGroupEntry{Name: "contract", Min: providertest.GroupMin, Max: providertest.GroupMax,
			InstanceTypes: []string{"m5.large"}, StockoutError: &inmemory.CloudError{Code: "InsufficientInstanceCapacity"},
			AutoscalingOptions: map[string]string{cloudprovider.OptionScaleDownUnneededTime: providertest.UnneededTime.String()}}
		cfg, err := entry.GroupConfig()
		if err != nil {
			t.Fatal(err)
		}
		if err := c.AddGroup(cfg); err != nil {
			t.Fatal(err)
		}
		if err := c.AddInstance("contract", "", true, 0); err != nil {
			t.Fatal(err)
		}
		if err := c.UpdateGroup("contract", func(g *inmemory.GroupConfig) { g.MinSize = providertest.GroupMin }); err != nil {
			t.Fatal(err)
		}
		srv := externalgrpctest.New(c, "")
		p, err := connect(t, &externalgrpc.CloudConfig{Address: srv.Start(t, nil)})
		if err != nil {
			t.Fatal(err)
		}
		// The server lists undelivered capacity as creating instances
		// with their error, as upstream's providers (AWS's) do over the
		// protocol: to kscale they are failed machines, not placeholders.
		return &providertest.Backend{Provider: p, Group: "contract", FailedMachines: true,
			StockOut: func(t *testing.T) {
				if err := c.UpdateGroup("contract", func(g *inmemory.GroupConfig) { g.Capacity = 0 }); err != nil {
					t.Fatal(err)
				}
			},
			FailAPI: func(t *testing.T) {
				if err := c.SetAPIError("contract", errors.New("throttled")); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = c.SetAPIError("contract", nil) })
			}}
	}})
}
