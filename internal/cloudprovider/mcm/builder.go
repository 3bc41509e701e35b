package mcm

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

// Environment variables of Gardener's MCM provider (Gardener sets the
// first two on its cluster-autoscaler Deployment).
const (
	EnvControlNamespace  = "CONTROL_NAMESPACE"
	EnvTargetKubeconfig  = "TARGET_KUBECONFIG"
	EnvControlKubeconfig = "CONTROL_KUBECONFIG"
)

// Defaults of the control cluster's client flags: client-go's.
const (
	DefaultControlQPS   = 5
	DefaultControlBurst = 10
)

// Builder builds the Gardener MCM provider for --cloud-provider=mcm, as
// Gardener deploys the cluster-autoscaler: --kubeconfig (and
// TARGET_KUBECONFIG) is the target (shoot) cluster; the control (seed)
// cluster is the in-cluster configuration, else the file
// CONTROL_KUBECONFIG; the Machine objects are in CONTROL_NAMESPACE.
type Builder struct {
	controlQPS        float64
	controlBurst      int
	targetKubeconfig  string
	controlKubeconfig string
	cfg               Config
}

// NewBuilder returns the MCM provider's Builder.
func NewBuilder() registry.Builder { return &Builder{} }

// AddFlags registers the mcm flags with upstream's names and client-go's
// defaults.
func (b *Builder) AddFlags(fs *pflag.FlagSet) {
	fs.Float64Var(&b.controlQPS, "control-apiserver-qps", DefaultControlQPS, "mcm: QPS limit of the control (seed) cluster's client.")
	fs.IntVar(&b.controlBurst, "control-apiserver-burst", DefaultControlBurst, "mcm: burst limit of the control (seed) cluster's client.")
}

// Unselected rejects the mcm flags under another provider.
func (b *Builder) Unselected(selected string) error {
	if (b.controlQPS != 0 && b.controlQPS != DefaultControlQPS) || (b.controlBurst != 0 && b.controlBurst != DefaultControlBurst) {
		return fmt.Errorf("--control-apiserver-qps, --control-apiserver-burst: only for --cloud-provider=mcm, not %s", selected)
	}
	return nil
}

// GPULabel returns Gardener's GPU node label.
func (b *Builder) GPULabel() string { return GPULabel }

// Config returns the provider configuration Complete derived (clients
// aside).
func (b *Builder) Config() Config { return b.cfg }

// Complete validates the flags, --nodes against CONTROL_NAMESPACE, and
// reads the environment.
func (b *Builder) Complete(c registry.Common) error {
	switch {
	case b.controlQPS <= 0:
		return fmt.Errorf("--control-apiserver-qps: must be positive, got %v", b.controlQPS)
	case b.controlBurst <= 0:
		return fmt.Errorf("--control-apiserver-burst: must be positive, got %d", b.controlBurst)
	case len(c.AutoDiscovery) > 0:
		return errors.New("--node-group-auto-discovery: not supported by --cloud-provider=mcm; name each MachineDeployment with --nodes=<min>:<max>:<namespace>.<machinedeployment>")
	case c.Config != "":
		return errors.New("--cloud-config: --cloud-provider=mcm reads no cloud config; the control cluster is the in-cluster configuration or CONTROL_KUBECONFIG")
	case len(c.Nodes) == 0:
		return errors.New("--nodes: --cloud-provider=mcm needs at least one --nodes=<min>:<max>:<namespace>.<machinedeployment>")
	}
	namespace := os.Getenv(EnvControlNamespace)
	groups, err := ParseGroups(c.Nodes, namespace)
	if err != nil {
		return fmt.Errorf("--nodes: %w", err)
	}
	if namespace == "" {
		namespace = groups[0].Namespace
	}
	b.cfg = Config{Namespace: namespace, Groups: groups}
	// The kubeconfig files are read when the provider is built, like
	// --kubeconfig: Gardener mounts them into the pod.
	b.targetKubeconfig, b.controlKubeconfig = os.Getenv(EnvTargetKubeconfig), os.Getenv(EnvControlKubeconfig)
	return nil
}

// controlConfig is the control cluster's client configuration: in-cluster,
// else CONTROL_KUBECONFIG, as upstream.
func (b *Builder) controlConfig(target *rest.Config) (*rest.Config, error) {
	cfg, inErr := rest.InClusterConfig()
	if inErr != nil {
		if b.controlKubeconfig == "" {
			return nil, fmt.Errorf("mcm: the control cluster is neither reachable in-cluster (%w) nor named by %s", inErr, EnvControlKubeconfig)
		}
		var err error
		if cfg, err = clientcmd.BuildConfigFromFlags("", b.controlKubeconfig); err != nil {
			return nil, fmt.Errorf("mcm: loading %s: %w", EnvControlKubeconfig, err)
		}
	}
	cfg.QPS, cfg.Burst, cfg.UserAgent = float32(b.controlQPS), b.controlBurst, target.UserAgent
	return cfg, nil
}

// checkTarget requires TARGET_KUBECONFIG, when set, to name the cluster
// --kubeconfig names: kscale reads nodes and pods from one target cluster
// (Gardener passes the same file to both).
func (b *Builder) checkTarget(target *rest.Config) error {
	if b.targetKubeconfig == "" {
		return nil
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", b.targetKubeconfig)
	if err != nil {
		return fmt.Errorf("mcm: loading %s: %w", EnvTargetKubeconfig, err)
	}
	if cfg.Host != target.Host {
		return fmt.Errorf("mcm: %s names the API server %s, --kubeconfig names %s; they must be the same target cluster", EnvTargetKubeconfig, cfg.Host, target.Host)
	}
	return nil
}

// Build makes the control clients and the provider.
func (b *Builder) Build(_ context.Context, deps registry.Deps) (*registry.Built, error) {
	if deps.RESTConfig == nil {
		return nil, errors.New("mcm: no target client configuration")
	}
	if err := b.checkTarget(deps.RESTConfig); err != nil {
		return nil, err
	}
	control, err := b.controlConfig(deps.RESTConfig)
	if err != nil {
		return nil, err
	}
	dyn, dc, err := machineapi.Clients(control, "control")
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
