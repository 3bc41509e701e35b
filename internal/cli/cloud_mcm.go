package cli

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kscale/kscale/internal/cloudprovider/mcm"
)

// Environment variables of Gardener's MCM provider (Gardener sets the
// first two on its cluster-autoscaler Deployment).
const (
	envControlNamespace  = "CONTROL_NAMESPACE"
	envTargetKubeconfig  = "TARGET_KUBECONFIG"
	envControlKubeconfig = "CONTROL_KUBECONFIG"
)

// mcmFlags are the flags only the mcm provider reads, with upstream's
// names and client-go's defaults.
type mcmFlags struct {
	controlQPS   float64
	controlBurst int
}

const (
	defaultControlQPS   = 5
	defaultControlBurst = 10
)

// addFlags registers them.
func (m *mcmFlags) addFlags(fs *pflag.FlagSet) {
	fs.Float64Var(&m.controlQPS, "control-apiserver-qps", defaultControlQPS, "mcm: QPS limit of the control (seed) cluster's client.")
	fs.IntVar(&m.controlBurst, "control-apiserver-burst", defaultControlBurst, "mcm: burst limit of the control (seed) cluster's client.")
}

// check rejects the mcm flags under another provider and bad values.
func (m *mcmFlags) check(provider string) error {
	if provider != "mcm" {
		if (m.controlQPS != 0 && m.controlQPS != defaultControlQPS) || (m.controlBurst != 0 && m.controlBurst != defaultControlBurst) {
			return fmt.Errorf("--control-apiserver-qps, --control-apiserver-burst: only for --cloud-provider=mcm, not %s", provider)
		}
		return nil
	}
	switch {
	case m.controlQPS <= 0:
		return fmt.Errorf("--control-apiserver-qps: must be positive, got %v", m.controlQPS)
	case m.controlBurst <= 0:
		return fmt.Errorf("--control-apiserver-burst: must be positive, got %d", m.controlBurst)
	}
	return nil
}

// mcmCloud builds the Gardener MCM provider as Gardener deploys the
// cluster-autoscaler: --kubeconfig (and TARGET_KUBECONFIG) is the target
// (shoot) cluster; the control (seed) cluster is the in-cluster
// configuration, else the file CONTROL_KUBECONFIG; the Machine objects
// are in CONTROL_NAMESPACE.
type mcmCloud struct {
	flags             mcmFlags
	targetKubeconfig  string
	controlKubeconfig string
	cfg               mcm.Config
}

// complete validates --nodes against CONTROL_NAMESPACE and reads the
// environment.
func (c *mcmCloud) complete(f *cloudFlags) error {
	switch {
	case len(f.autoDiscovery) > 0:
		return errors.New("--node-group-auto-discovery: not supported by --cloud-provider=mcm; name each MachineDeployment with --nodes=<min>:<max>:<namespace>.<machinedeployment>")
	case f.config != "":
		return errors.New("--cloud-config: --cloud-provider=mcm reads no cloud config; the control cluster is the in-cluster configuration or CONTROL_KUBECONFIG")
	case len(f.nodes) == 0:
		return errors.New("--nodes: --cloud-provider=mcm needs at least one --nodes=<min>:<max>:<namespace>.<machinedeployment>")
	}
	c.flags = f.mcm
	namespace := os.Getenv(envControlNamespace)
	groups, err := mcm.ParseGroups(f.nodes, namespace)
	if err != nil {
		return fmt.Errorf("--nodes: %w", err)
	}
	if namespace == "" {
		namespace = groups[0].Namespace
	}
	c.cfg = mcm.Config{Namespace: namespace, Groups: groups}
	// The kubeconfig files are read when the provider is built, like
	// --kubeconfig: Gardener mounts them into the pod.
	c.targetKubeconfig, c.controlKubeconfig = os.Getenv(envTargetKubeconfig), os.Getenv(envControlKubeconfig)
	return nil
}

// controlConfig is the control cluster's client configuration: in-cluster,
// else CONTROL_KUBECONFIG, as upstream.
func (c *mcmCloud) controlConfig(target *rest.Config) (*rest.Config, error) {
	cfg, inErr := rest.InClusterConfig()
	if inErr != nil {
		if c.controlKubeconfig == "" {
			return nil, fmt.Errorf("mcm: the control cluster is neither reachable in-cluster (%w) nor named by %s", inErr, envControlKubeconfig)
		}
		var err error
		if cfg, err = clientcmd.BuildConfigFromFlags("", c.controlKubeconfig); err != nil {
			return nil, fmt.Errorf("mcm: loading %s: %w", envControlKubeconfig, err)
		}
	}
	cfg.QPS, cfg.Burst, cfg.UserAgent = float32(c.flags.controlQPS), c.flags.controlBurst, target.UserAgent
	return cfg, nil
}

// checkTarget requires TARGET_KUBECONFIG, when set, to name the cluster
// --kubeconfig names: kscale reads nodes and pods from one target cluster
// (Gardener passes the same file to both).
func (c *mcmCloud) checkTarget(target *rest.Config) error {
	if c.targetKubeconfig == "" {
		return nil
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", c.targetKubeconfig)
	if err != nil {
		return fmt.Errorf("mcm: loading %s: %w", envTargetKubeconfig, err)
	}
	if cfg.Host != target.Host {
		return fmt.Errorf("mcm: %s names the API server %s, --kubeconfig names %s; they must be the same target cluster", envTargetKubeconfig, cfg.Host, target.Host)
	}
	return nil
}

// build makes the control clients and the provider.
func (c *mcmCloud) build(_ context.Context, deps cloudDeps) (*cloud, error) {
	if deps.RESTConfig == nil {
		return nil, errors.New("mcm: no target client configuration")
	}
	if err := c.checkTarget(deps.RESTConfig); err != nil {
		return nil, err
	}
	control, err := c.controlConfig(deps.RESTConfig)
	if err != nil {
		return nil, err
	}
	dyn, dc, err := dynamicClients(control, "control")
	if err != nil {
		return nil, err
	}
	cfg := c.cfg
	cfg.Client, cfg.Discovery, cfg.Nodes = dyn, dc, deps.Factory.Core().V1().Nodes().Lister()
	provider, err := mcm.New(cfg)
	if err != nil {
		return nil, err
	}
	return &cloud{provider: provider}, nil
}
