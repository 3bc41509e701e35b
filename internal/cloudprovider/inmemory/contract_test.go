package inmemory_test

import (
	"testing"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/inmemory/inmemorytest"
	"github.com/kscale/kscale/internal/cloudprovider/providertest"
)

// TestContract runs the provider contract suite on the in-memory cloud.
func TestContract(t *testing.T) {
	providertest.Run(t, providertest.Harness{Knowledge: cloudprovider.KnowsListedInstances, Start: func(t *testing.T) *providertest.Backend {
		_, b := inmemorytest.ContractBackend(t)
		return b
	}})
}
