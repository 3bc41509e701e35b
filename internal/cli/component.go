package cli

import (
	"context"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// component is a long-running subcommand: its flags, a check that turns
// them into the component's configuration, and the run itself.
type component interface {
	// addFlags registers the component's flags.
	addFlags(fs *pflag.FlagSet)
	// complete validates and converts the parsed flags; its errors are the
	// caller's (exit code 2).
	complete() error
	// run runs the component until ctx ends.
	run(ctx context.Context) error
}

// newComponentCommand builds the subcommand of a component. It takes no
// arguments; errors from complete are usage errors.
func newComponentCommand(use, short string, c component) *cobra.Command {
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := c.complete(); err != nil {
				return &UsageError{Err: err}
			}
			// controller-runtime logs through its own global logger; without
			// one it prints a stack trace instead of its messages.
			ctrllog.SetLogger(klog.NewKlogr())
			return c.run(cmd.Context())
		},
	}
	c.addFlags(cmd.Flags())
	return cmd
}

// clientFlags are the Kubernetes API client flags every component has.
type clientFlags struct {
	kubeconfig string
	qps        float64
	burst      int
	spec       clientFlagSpec
}

// clientFlagSpec names a component's client flags and their defaults; the
// names follow the upstream component each one replaces.
type clientFlagSpec struct {
	qpsFlag, burstFlag string
	qps                float64
	burst              int
	kubeconfigUsage    string
}

func (f *clientFlags) add(fs *pflag.FlagSet, spec clientFlagSpec) {
	if spec.kubeconfigUsage == "" {
		spec.kubeconfigUsage = "Path to a kubeconfig; empty uses the in-cluster configuration."
	}
	f.spec = spec
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", spec.kubeconfigUsage)
	fs.Float64Var(&f.qps, spec.qpsFlag, spec.qps, "QPS limit of the Kubernetes API client.")
	fs.IntVar(&f.burst, spec.burstFlag, spec.burst, "Burst limit of the Kubernetes API client.")
}

// validate rejects limits that would stall the client.
func (f *clientFlags) validate() error {
	if f.qps <= 0 || f.burst <= 0 {
		return fmt.Errorf("--%s and --%s: must be positive, got %g and %d", f.spec.qpsFlag, f.spec.burstFlag, f.qps, f.burst)
	}
	return nil
}

// restConfig loads the client configuration from --kubeconfig, or the
// in-cluster configuration without it, with the flags' limits.
func (f *clientFlags) restConfig(userAgent string) (*rest.Config, error) {
	cfg, err := loadRESTConfig(f.kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst, cfg.UserAgent = float32(f.qps), f.burst, userAgent
	return cfg, nil
}

// loadRESTConfig loads the client configuration from kubeconfig, or the
// in-cluster configuration when it is empty.
func loadRESTConfig(kubeconfig string) (*rest.Config, error) {
	var cfg *rest.Config
	var err error
	if kubeconfig != "" {
		cfg, err = clientcmd.BuildConfigFromFlags("", kubeconfig)
	} else {
		cfg, err = rest.InClusterConfig()
	}
	if err != nil {
		return nil, fmt.Errorf("loading the Kubernetes client configuration: %w", err)
	}
	return cfg, nil
}

// newProcessRegistry returns the registry a command serves on /metrics,
// with the Go runtime and process collectors every component exposes.
func newProcessRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}
