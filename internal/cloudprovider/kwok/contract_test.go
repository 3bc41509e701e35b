package kwok_test

import (
	"errors"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/inmemory"
	"github.com/kscale/kscale/internal/cloudprovider/kwok"
	"github.com/kscale/kscale/internal/cloudprovider/providertest"
	"github.com/kscale/kscale/internal/testenv"
)

const contractConfig = `
nodeGroups:
- name: contract
  min: 1
  max: 3
  instanceTypes: [m5.large]
  bootTime: 0s
  stockoutError: {code: InsufficientInstanceCapacity}
  autoscalingOptions: {scaledownunneededtime: 7m}
`

// TestContract runs the provider contract suite on the kwok provider with
// a real API server: its size changes write nodes and the targets'
// ConfigMap before they return.
func TestContract(t *testing.T) {
	providertest.Run(t, providertest.Harness{Knowledge: cloudprovider.AssumesInstancesExist, Start: func(t *testing.T) *providertest.Backend {
		env := testenv.Start(t, testenv.Options{})
		cfg, err := kwok.ParseCloudConfig([]byte(contractConfig))
		if err != nil {
			t.Fatal(err)
		}
		p := newProvider(t, env, cfg, clocktesting.NewFakeClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)))
		expectNodes(t, env, map[string]int{"contract": 1})
		return &providertest.Backend{Provider: p, Group: "contract",
			StockOut: func(t *testing.T) {
				if err := p.UpdateGroup("contract", func(g *inmemory.GroupConfig) { g.Capacity = 0 }); err != nil {
					t.Fatal(err)
				}
			},
			FailAPI: func(t *testing.T) {
				if err := p.SetAPIError("contract", errors.New("throttled")); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = p.SetAPIError("contract", nil) })
			}}
	}})
}
