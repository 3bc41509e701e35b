package clusterapi

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kscale/kscale/internal/cloudprovider/machineapi"
	"github.com/kscale/kscale/internal/cloudprovider/registry"
)

// Environment variables of upstream's clusterapi provider.
const (
	EnvGroup       = "CAPI_GROUP"
	EnvVersion     = "CAPI_VERSION"
	EnvDefaultArch = "CAPI_SCALE_ZERO_DEFAULT_ARCH"
)

// UninitializedTaint is the taint Cluster API's Machine controller keeps
// on a new node until it synced the node's labels (CAPI
// api/core/v1beta2 NodeUninitializedTaint); its key does not follow
// CAPI_GROUP.
const UninitializedTaint = "node.cluster.x-k8s.io/uninitialized"

// Builder builds the Cluster API provider for --cloud-provider=clusterapi:
// --kubeconfig is the workload cluster (nodes, pods), --cloud-config the
// management cluster's kubeconfig (Machine objects), as upstream.
type Builder struct {
	authoritative        bool
	managementKubeconfig string
	cfg                  Config
}

// NewBuilder returns the Cluster API provider's Builder.
func NewBuilder() registry.Builder { return &Builder{} }

// AddFlags registers the clusterapi flags with upstream's names.
func (b *Builder) AddFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&b.authoritative, "clusterapi-cloud-config-authoritative", false,
		"clusterapi: an empty --cloud-config means the in-cluster configuration for the management cluster instead of --kubeconfig's cluster.")
}

// Unselected rejects --clusterapi-cloud-config-authoritative under
// another provider.
func (b *Builder) Unselected(selected string) error {
	if b.authoritative {
		return fmt.Errorf("--clusterapi-cloud-config-authoritative: only for --cloud-provider=clusterapi, not %s", selected)
	}
	return nil
}

// StartupTaints returns Cluster API's uninitialized taint: a node that
// carries it is not ready for pods yet, and a template copied from it must
// not keep it.
func (b *Builder) StartupTaints() []string { return []string{UninitializedTaint} }

// GPULabel returns upstream's Cluster API GPU node label.
func (b *Builder) GPULabel() string { return GPULabel }

// Config returns the provider configuration Complete derived (clients
// aside).
func (b *Builder) Config() Config { return b.cfg }

// Complete validates the flags and reads the CAPI_* environment.
func (b *Builder) Complete(c registry.Common) error {
	if len(c.Nodes) > 0 {
		return errors.New("--nodes: not supported by --cloud-provider=clusterapi; node groups are the Cluster API resources with size annotations (narrow them with --node-group-auto-discovery=clusterapi:...)")
	}
	specs, err := ParseDiscovery(c.AutoDiscovery)
	if err != nil {
		return fmt.Errorf("--node-group-auto-discovery: %w", err)
	}
	if c.Config != "" {
		if _, err := os.Stat(c.Config); err != nil {
			return fmt.Errorf("--cloud-config (the management cluster's kubeconfig): %w", err)
		}
	}
	b.managementKubeconfig = c.Config
	b.cfg = Config{Specs: specs}
	for _, env := range []struct {
		name string
		into *string
	}{{EnvGroup, &b.cfg.Group}, {EnvVersion, &b.cfg.Version}, {EnvDefaultArch, &b.cfg.DefaultArch}} {
		*env.into = os.Getenv(env.name)
		probe := b.cfg // validated as Default would complete it
		probe.Default()
		if err := probe.ValidateSettings(); err != nil {
			return fmt.Errorf("%s: %w", env.name, err)
		}
	}
	return nil
}

// managementConfig is the management cluster's client configuration:
// --cloud-config, else in-cluster with
// --clusterapi-cloud-config-authoritative, else the workload cluster's.
// It keeps the workload client's QPS, burst and user agent.
func (b *Builder) managementConfig(workload *rest.Config) (*rest.Config, error) {
	var cfg *rest.Config
	var err error
	switch {
	case b.managementKubeconfig != "":
		cfg, err = clientcmd.BuildConfigFromFlags("", b.managementKubeconfig)
	case b.authoritative:
		cfg, err = rest.InClusterConfig()
	default:
		cfg = rest.CopyConfig(workload)
	}
	if err != nil {
		return nil, fmt.Errorf("loading the management cluster's client configuration: %w", err)
	}
	cfg.QPS, cfg.Burst, cfg.UserAgent = workload.QPS, workload.Burst, workload.UserAgent
	return cfg, nil
}

// Build makes the management clients and the provider.
func (b *Builder) Build(_ context.Context, deps registry.Deps) (*registry.Built, error) {
	if deps.RESTConfig == nil {
		return nil, errors.New("clusterapi: no workload client configuration")
	}
	mgmt, err := b.managementConfig(deps.RESTConfig)
	if err != nil {
		return nil, err
	}
	dyn, dc, err := machineapi.Clients(mgmt, "management")
	if err != nil {
		return nil, err
	}
	cfg := b.cfg
	cfg.Client, cfg.Discovery, cfg.Nodes = dyn, dc, deps.Factory.Core().V1().Nodes().Lister()
	provider, err := New(cfg)
	if err != nil {
		return nil, err
	}
	return &registry.Built{Provider: provider}, nil
}

// UpstreamAddsKubeProxy marks the provider as one whose upstream adds a
// fake kube-proxy pod to its templates (--template-kube-proxy-pod).
func (b *Builder) UpstreamAddsKubeProxy() {}
