package clusterapitest

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/testenv"
)

// Module and Version are the Cluster API release whose CRDs the tests
// install: the newest one, built against our Kubernetes minor (its go.mod
// requires k8s.io v0.36).
const (
	Module  = "sigs.k8s.io/cluster-api"
	Version = "v1.14.2"
)

// crdDir is where the module keeps the core CRDs since v1.14.0.
const crdDir = "core/config/crd/bases"

// CRDs returns the real MachineDeployment, MachineSet, Machine and
// MachinePool CRDs of the pinned Cluster API module.
func CRDs(ctx context.Context) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	dir, err := testenv.ModuleDir(ctx, Module, Version)
	if err != nil {
		return nil, err
	}
	return testenv.ReadCRDs(filepath.Join(dir, crdDir),
		"cluster.x-k8s.io_machinedeployments.yaml", "cluster.x-k8s.io_machinesets.yaml",
		"cluster.x-k8s.io_machines.yaml", "cluster.x-k8s.io_machinepools.yaml")
}

// Infrastructure template test kind: the group, kind and resource of the
// tiny CRD InfraTemplateCRD defines.
const (
	InfraGroup    = "infrastructure.kscale.test"
	InfraKind     = "SimMachineTemplate"
	InfraResource = "simmachinetemplates"
)

// InfraTemplateCRD is a minimal infrastructure machine template kind with
// the status.capacity and status.nodeInfo of Cluster API's
// opt-in-autoscaling-from-zero contract; its plural is the lower-case
// kind plus "s" as that contract requires.
func InfraTemplateCRD() *apiextensionsv1.CustomResourceDefinition {
	preserve := true
	obj := apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: &preserve}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: InfraResource + "." + InfraGroup},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: InfraGroup, Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: InfraResource, Singular: "simmachinetemplate", Kind: InfraKind, ListKind: InfraKind + "List"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1beta1", Served: true, Storage: true,
				Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": obj, "status": obj}}}}},
		},
	}
}

// Install installs the Cluster API CRDs and the infrastructure template
// CRD on env.
func Install(ctx context.Context, env *testenv.Env) error {
	crds, err := CRDs(ctx)
	if err != nil {
		return err
	}
	if err := env.InstallCRDs(ctx, append(crds, InfraTemplateCRD()), time.Minute); err != nil {
		return fmt.Errorf("installing the Cluster API CRDs: %w", err)
	}
	return nil
}
