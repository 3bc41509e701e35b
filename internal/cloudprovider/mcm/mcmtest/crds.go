package mcmtest

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kscale/kscale/internal/testenv"
)

// Module and Version are the MCM release whose CRDs the tests install:
// the newest tag.
const (
	Module  = "github.com/gardener/machine-controller-manager"
	Version = "v0.62.1"
)

// crdDir is where the module keeps its CRDs.
const crdDir = "kubernetes/crds"

// CRDs returns the real MachineClass, MachineDeployment, MachineSet and
// Machine CRDs of the pinned MCM module.
func CRDs(ctx context.Context) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	dir, err := testenv.ModuleDir(ctx, Module, Version)
	if err != nil {
		return nil, err
	}
	return testenv.ReadCRDs(filepath.Join(dir, crdDir),
		"machine.sapcloud.io_machineclasses.yaml", "machine.sapcloud.io_machinedeployments.yaml",
		"machine.sapcloud.io_machinesets.yaml", "machine.sapcloud.io_machines.yaml")
}

// Install installs the MCM CRDs on env.
func Install(ctx context.Context, env *testenv.Env) error {
	crds, err := CRDs(ctx)
	if err != nil {
		return err
	}
	if err := env.InstallCRDs(ctx, crds, time.Minute); err != nil {
		return fmt.Errorf("installing the MCM CRDs: %w", err)
	}
	return nil
}
