package capienv

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kscale/kscale/internal/cloudprovider/clusterapi/clusterapitest"
	"github.com/kscale/kscale/internal/testenv"
)

// crdDir is where the module keeps the core CRDs since v1.14.0.
const crdDir = "core/config/crd/bases"

// Stand-in kinds: the infrastructure machine the MachineSet controller
// clones from clusterapitest's SimMachineTemplate, and the Cluster's
// control plane. They live in the template's group.
const (
	InfraMachineKind = "SimMachine"
	ControlPlaneKind = "SimControlPlane"
)

// Resources of the stand-in kinds and of the Cluster.
var (
	InfraMachines = schema.GroupVersionResource{Group: clusterapitest.InfraGroup, Version: "v1beta1", Resource: "simmachines"}
	ControlPlanes = schema.GroupVersionResource{Group: clusterapitest.InfraGroup, Version: "v1beta1", Resource: "simcontrolplanes"}
	Clusters      = clusterapitest.GroupVersion.WithResource("clusters")
)

// contractLabel tells Cluster API which of its contracts a provider CRD
// follows and with which of the CRD's versions: v1beta2, with v1beta1.
const contractLabel = "cluster.x-k8s.io/v1beta2"

// Install installs every core Cluster API CRD of the pinned module (the
// manager watches them all) and the stand-in provider's CRDs, labelled
// with the contract they follow, on the management cluster.
func Install(ctx context.Context, env *testenv.Env) error {
	dir, err := testenv.ModuleDir(ctx, clusterapitest.Module, clusterapitest.Version)
	if err != nil {
		return errNoModule(err)
	}
	entries, err := os.ReadDir(filepath.Join(dir, crdDir))
	if err != nil {
		return errNoModule(err)
	}
	var files []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".yaml") {
			files = append(files, e.Name())
		}
	}
	crds, err := testenv.ReadCRDs(filepath.Join(dir, crdDir), files...)
	if err != nil {
		return errNoModule(err)
	}
	crds = append(crds, StandInCRDs()...)
	if err := env.InstallCRDs(ctx, crds, time.Minute); err != nil {
		return fmt.Errorf("installing the Cluster API CRDs: %w", err)
	}
	return nil
}

// StandInCRDs returns the stand-in provider's CRDs: clusterapitest's
// SimMachineTemplate, SimMachine and SimControlPlane, each with the
// contract label.
func StandInCRDs() []*apiextensionsv1.CustomResourceDefinition {
	tmpl := clusterapitest.InfraTemplateCRD()
	out := []*apiextensionsv1.CustomResourceDefinition{tmpl,
		standInCRD(tmpl, InfraMachines.Resource, InfraMachineKind),
		standInCRD(tmpl, ControlPlanes.Resource, ControlPlaneKind)}
	for _, crd := range out {
		if crd.Labels == nil {
			crd.Labels = map[string]string{}
		}
		crd.Labels[contractLabel] = "v1beta1"
	}
	return out
}

// standInCRD returns a copy of base for another kind.
func standInCRD(base *apiextensionsv1.CustomResourceDefinition, plural, kind string) *apiextensionsv1.CustomResourceDefinition {
	crd := base.DeepCopy()
	crd.ObjectMeta = metav1.ObjectMeta{Name: plural + "." + base.Spec.Group}
	crd.Spec.Names = apiextensionsv1.CustomResourceDefinitionNames{Plural: plural, Singular: strings.ToLower(kind), Kind: kind, ListKind: kind + "List"}
	return crd
}
