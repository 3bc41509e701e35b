package mcm_test

import (
	"testing"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/mcm"
	"github.com/kscale/kscale/internal/cloudprovider/mcm/mcmtest"
	"github.com/kscale/kscale/internal/cloudprovider/providertest"
	"github.com/kscale/kscale/internal/testenv/machinesim"
)

// TestContract runs the provider contract suite on the MCM provider: the
// real MCM CRDs in a control cluster, the stand-in MCM booting Machines
// into a target cluster's nodes, writes failed by a fault-injecting
// transport.
func TestContract(t *testing.T) {
	providertest.Run(t, providertest.Harness{Knowledge: cloudprovider.CannotTellInstances, Start: func(t *testing.T) *providertest.Backend {
		name := ns + "-a-z1"
		faults := &providertest.WriteFaults{}
		w := newWorldWith(t, faults.Wrap, "1:3:"+ns+"."+name)
		d := mcmtest.Deployment{Namespace: ns, Name: name, Class: "class-contract", Replicas: 1}.Object()
		d.SetAnnotations(map[string]string{mcm.ScaleDownUnneededTimeAnnotation: providertest.UnneededTime.String()})
		w.create(t, mcmtest.Class{Namespace: ns, Name: "class-contract", Capacity: capacity, InstanceType: "m5.xlarge", Region: "eu-1", Zone: "eu-1a"}.Object(), d)
		return &providertest.Backend{Provider: w.provider, Group: name, FailedMachines: true,
			StockOut: func(*testing.T) {
				w.sim.Fail(ns+"/"+name, &machinesim.Failure{Reason: "ResourceExhausted", Message: "InsufficientInstanceCapacity in eu-1a"})
			},
			FailAPI: faults.Arm}
	}})
}
