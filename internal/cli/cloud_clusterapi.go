package cli

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/pflag"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kscale/kscale/internal/cloudprovider/clusterapi"
)

// Environment variables of upstream's clusterapi provider.
const (
	envCAPIGroup       = "CAPI_GROUP"
	envCAPIVersion     = "CAPI_VERSION"
	envCAPIDefaultArch = "CAPI_SCALE_ZERO_DEFAULT_ARCH"
)

// clusterAPIFlags are the flags only the clusterapi provider reads.
type clusterAPIFlags struct {
	authoritative bool
}

// addFlags registers them with upstream's names.
func (c *clusterAPIFlags) addFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&c.authoritative, "clusterapi-cloud-config-authoritative", false,
		"clusterapi: an empty --cloud-config means the in-cluster configuration for the management cluster instead of --kubeconfig's cluster.")
}

// startupTainter is a cloud builder whose provider's nodes carry taints
// of their own while they start; the autoscaler treats them as startup
// taints.
type startupTainter interface {
	startupTaints() []string
}

// uninitializedTaint is the taint Cluster API's Machine controller keeps on
// a new node until it synced the node's labels (CAPI
// api/core/v1beta2 NodeUninitializedTaint); its key does not follow
// CAPI_GROUP.
const uninitializedTaint = "node.cluster.x-k8s.io/uninitialized"

// startupTaints returns Cluster API's uninitialized taint: a node that
// carries it is not ready for pods yet, and a template copied from it must
// not keep it.
func (c *clusterAPICloud) startupTaints() []string { return []string{uninitializedTaint} }

// check rejects the clusterapi flags under another provider.
func (c *clusterAPIFlags) check(provider string) error {
	if c.authoritative && provider != "clusterapi" {
		return fmt.Errorf("--clusterapi-cloud-config-authoritative: only for --cloud-provider=clusterapi, not %s", provider)
	}
	return nil
}

// clusterAPICloud builds the Cluster API provider: --kubeconfig is the
// workload cluster (nodes, pods), --cloud-config the management cluster's
// kubeconfig (Machine objects), as upstream.
type clusterAPICloud struct {
	managementKubeconfig string
	authoritative        bool
	cfg                  clusterapi.Config
}

// complete validates the flags and reads the CAPI_* environment.
func (c *clusterAPICloud) complete(f *cloudFlags) error {
	if len(f.nodes) > 0 {
		return errors.New("--nodes: not supported by --cloud-provider=clusterapi; node groups are the Cluster API resources with size annotations (narrow them with --node-group-auto-discovery=clusterapi:...)")
	}
	specs, err := clusterapi.ParseDiscovery(f.autoDiscovery)
	if err != nil {
		return fmt.Errorf("--node-group-auto-discovery: %w", err)
	}
	if f.config != "" {
		if _, err := os.Stat(f.config); err != nil {
			return fmt.Errorf("--cloud-config (the management cluster's kubeconfig): %w", err)
		}
	}
	c.managementKubeconfig, c.authoritative = f.config, f.clusterAPI.authoritative
	c.cfg = clusterapi.Config{Specs: specs}
	for _, env := range []struct {
		name string
		into *string
	}{{envCAPIGroup, &c.cfg.Group}, {envCAPIVersion, &c.cfg.Version}, {envCAPIDefaultArch, &c.cfg.DefaultArch}} {
		*env.into = os.Getenv(env.name)
		probe := c.cfg // validated as Default would complete it
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
func (c *clusterAPICloud) managementConfig(workload *rest.Config) (*rest.Config, error) {
	var cfg *rest.Config
	var err error
	switch {
	case c.managementKubeconfig != "":
		cfg, err = clientcmd.BuildConfigFromFlags("", c.managementKubeconfig)
	case c.authoritative:
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

// build makes the management clients and the provider.
func (c *clusterAPICloud) build(_ context.Context, deps cloudDeps) (*cloud, error) {
	if deps.RESTConfig == nil {
		return nil, errors.New("clusterapi: no workload client configuration")
	}
	mgmt, err := c.managementConfig(deps.RESTConfig)
	if err != nil {
		return nil, err
	}
	dyn, dc, err := dynamicClients(mgmt, "management")
	if err != nil {
		return nil, err
	}
	cfg := c.cfg
	cfg.Client, cfg.Discovery, cfg.Nodes = dyn, dc, deps.Factory.Core().V1().Nodes().Lister()
	provider, err := clusterapi.New(cfg)
	if err != nil {
		return nil, err
	}
	return &cloud{provider: provider}, nil
}

// dynamicClients builds the dynamic and discovery clients of a machine
// API's cluster; which names it in errors.
func dynamicClients(cfg *rest.Config, which string) (dynamic.Interface, discovery.DiscoveryInterface, error) {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("building the %s cluster's client: %w", which, err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("building the %s cluster's discovery client: %w", which, err)
	}
	return dyn, dc, nil
}
