package externalgrpc_test

import (
	"testing"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/externalgrpc"
	"github.com/kscale/kscale/internal/cloudprovider/externalgrpc/externalgrpctest"
	"github.com/kscale/kscale/internal/cloudprovider/inmemory/inmemorytest"
	"github.com/kscale/kscale/internal/cloudprovider/providertest"
)

// TestContract runs the provider contract suite on the externalgrpc
// provider, its back-end the in-memory cloud behind a server of ours.
func TestContract(t *testing.T) {
	providertest.Run(t, providertest.Harness{Knowledge: cloudprovider.CannotTellInstances, Start: func(t *testing.T) *providertest.Backend {
		cloud, b := inmemorytest.ContractBackend(t)
		srv := externalgrpctest.New(cloud, "")
		p, err := connect(t, &externalgrpc.CloudConfig{Address: srv.Start(t, nil)})
		if err != nil {
			t.Fatal(err)
		}
		// The server lists undelivered capacity as creating instances
		// with their error, as upstream's providers (AWS's) do over the
		// protocol: to kscale they are failed machines, not placeholders.
		b.Provider, b.FailedMachines = p, true
		return b
	}})
}
