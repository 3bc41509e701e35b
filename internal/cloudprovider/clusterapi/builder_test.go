package clusterapi

import (
	"testing"

	"github.com/kscale/kscale/internal/cloudprovider/registry"
)

func TestBuilderCompletesFromFlagsAndEnvironment(t *testing.T) {
	t.Setenv(EnvGroup, "cluster.example.com")
	t.Setenv(EnvDefaultArch, "arm64")
	b := NewBuilder().(*Builder)
	if err := b.Complete(registry.Common{Provider: "clusterapi", AutoDiscovery: []string{"clusterapi:namespace=a,team=x", "clusterapi:clusterName=c"}}); err != nil {
		t.Fatal(err)
	}
	if st := b.StartupTaints(); len(st) != 1 || st[0] != "node.cluster.x-k8s.io/uninitialized" {
		t.Errorf("startup taints %v, want CAPI's uninitialized taint", st)
	}
	if b.GPULabel() != "cluster-api/accelerator" {
		t.Errorf("GPU label %q, want upstream's cluster-api/accelerator", b.GPULabel())
	}
	c := b.Config()
	if c.Group != "cluster.example.com" || c.DefaultArch != "arm64" || len(c.Specs) != 2 || c.Specs[0].Namespace != "a" {
		t.Errorf("config %+v", c)
	}
}
