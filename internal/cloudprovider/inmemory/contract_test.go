package inmemory_test

import (
	"errors"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/inmemory"
	"github.com/kscale/kscale/internal/cloudprovider/providertest"
)

// TestContract runs the provider contract suite on the in-memory cloud.
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
		return &providertest.Backend{Provider: c, Group: "contract",
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
