package capienv

import (
	"context"
	"errors"
	"testing"

	"k8s.io/client-go/dynamic"

	"github.com/kscale/kscale/internal/testenv"
)

// Config configures Start.
type Config struct {
	// Management runs the manager and holds the Cluster API objects; it
	// has Install's CRDs and the namespace.
	Management *testenv.Env
	// Workload is the cluster whose Nodes the Machines become.
	Workload *testenv.Env
	// Namespace holds the Cluster and its machines.
	Namespace string
	// Cluster names the Cluster; default "workload".
	Cluster string
	// Infra configures the stand-in provider; its clients and namespace
	// are filled in.
	Infra InfraConfig
}

// Controllers are the running manager and the stand-in provider.
type Controllers struct {
	// Manager is the real Cluster API core controller manager.
	Manager *Manager
	// Infra is the stand-in infrastructure provider.
	Infra *Infra
}

// Start creates the Cluster, starts the manager and the stand-in
// provider for the test, and stops them at cleanup; errors the provider
// met fail the test then.
func Start(t testing.TB, cfg Config) *Controllers {
	t.Helper()
	if cfg.Cluster == "" {
		cfg.Cluster = "workload"
	}
	ctx := t.Context()
	mgr, err := StartManager(ctx, cfg.Management)
	if err != nil {
		t.Fatal(err)
	}
	if err := CreateCluster(ctx, cfg.Management, cfg.Workload, cfg.Namespace, cfg.Cluster); err != nil {
		t.Fatal(err)
	}
	cfg.Infra.Management, err = dynamic.NewForConfig(cfg.Management.Config)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Infra.Workload, cfg.Infra.Namespace = cfg.Workload.Client, cfg.Namespace
	infra, err := NewInfra(cfg.Infra)
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() { infra.Run(runCtx); close(done) }()
	t.Cleanup(func() {
		stop()
		<-done
		if errs := infra.Errors(); len(errs) > 0 {
			t.Errorf("infrastructure stand-in errors: %v", errors.Join(errs...))
		}
		if t.Failed() {
			t.Logf("%s log tail:\n%s", ManagerName, mgr.Logs())
		}
	})
	return &Controllers{Manager: mgr, Infra: infra}
}
