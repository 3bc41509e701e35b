// Package inmemorytest builds the in-memory cloud the provider contract
// suite (cloudprovider/providertest) runs on, for the in-memory cloud's own
// contract test and for providers that serve it over another interface
// (externalgrpc).
package inmemorytest

import (
	"errors"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/inmemory"
	"github.com/kscale/kscale/internal/cloudprovider/providertest"
)

// ContractGroup is the id of the suite's node group.
const ContractGroup = "contract"

// ContractBackend builds a cloud holding the suite's node group (min
// GroupMin, max GroupMax, one running instance, the UnneededTime option)
// and returns it with a Backend whose Provider is the cloud itself and
// whose faults act on it; a caller serving the cloud otherwise replaces
// Provider.
func ContractBackend(t *testing.T) (*inmemory.Cloud, *providertest.Backend) {
	t.Helper()
	c := inmemory.New(clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
	entry := inmemory.NodeGroupEntry{Name: ContractGroup, Min: providertest.GroupMin, Max: providertest.GroupMax,
		InstanceTypes: []string{"m5.large"}, StockoutError: &inmemory.CloudError{Code: "InsufficientInstanceCapacity"},
		AutoscalingOptions: map[string]string{cloudprovider.OptionScaleDownUnneededTime: providertest.UnneededTime.String()}}
	cfg, err := entry.GroupConfig()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddGroup(cfg); err != nil {
		t.Fatal(err)
	}
	if err := c.AddInstance(ContractGroup, "", true, 0); err != nil {
		t.Fatal(err)
	}
	if err := c.UpdateGroup(ContractGroup, func(g *inmemory.GroupConfig) { g.MinSize = providertest.GroupMin }); err != nil {
		t.Fatal(err)
	}
	return c, &providertest.Backend{Provider: c, Group: ContractGroup,
		StockOut: func(t *testing.T) {
			if err := c.UpdateGroup(ContractGroup, func(g *inmemory.GroupConfig) { g.Capacity = 0 }); err != nil {
				t.Fatal(err)
			}
		},
		FailAPI: func(t *testing.T) {
			if err := c.SetAPIError(ContractGroup, errors.New("throttled")); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = c.SetAPIError(ContractGroup, nil) })
		}}
}
