package clusterapi_test

import (
	"testing"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/clusterapi/clusterapitest"
	"github.com/kscale/kscale/internal/cloudprovider/providertest"
	"github.com/kscale/kscale/internal/testenv/machinesim"
)

// TestContract runs the provider contract suite on the Cluster API
// provider: the CRDs on a real API server, the stand-in machine controller
// booting Machines into nodes, writes failed by a fault-injecting
// transport.
func TestContract(t *testing.T) {
	providertest.Run(t, providertest.Harness{Knowledge: cloudprovider.KnowsListedInstances, Start: func(t *testing.T) *providertest.Backend {
		faults := &providertest.WriteFaults{}
		w := newWorldWith(t, faults.Wrap)
		w.create(t, clusterapitest.InfraTemplate(ns, "md-contract"),
			md("md-contract", 1, providertest.GroupMin, providertest.GroupMax, map[string]string{
				optionPrefix + "scaledownunneededtime": providertest.UnneededTime.String()}))
		return &providertest.Backend{Provider: w.provider, Group: "MachineDeployment/" + ns + "/md-contract", FailedMachines: true,
			StockOut: func(*testing.T) {
				w.sim.Fail(ns+"/md-contract", &machinesim.Failure{Reason: "InsufficientResources", Message: "no capacity in zone-b"})
			},
			FailAPI: faults.Arm}
	}})
}
