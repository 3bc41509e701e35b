package cli

import (
	"context"
	"fmt"
	"math"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/kscale/kscale/internal/buildinfo"
)

// component is a long-running subcommand: its flags, a check that turns
// them into the component's configuration, and the run itself.
type component interface {
	// addFlags registers the component's flags.
	addFlags(fs *pflag.FlagSet)
	// complete validates and converts the parsed flags; its errors are the
	// caller's (exit code 2).
	complete() error
	// run runs the component until ctx ends; ctx carries the logger.
	run(ctx context.Context) error
	// common returns the component's shared flags (logging, feature
	// gates, profiling), which newComponentCommand registers.
	common() *commonFlags
}

// newComponentCommand builds the subcommand of a component. It takes no
// arguments. PreRunE validates every flag (its errors are usage errors);
// RunE applies the logging flags and runs the component.
func newComponentCommand(use, short string, c component, spec commonSpec) *cobra.Command {
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  usageNoArgs,
		PreRunE: func(*cobra.Command, []string) error {
			if err := c.common().complete(); err != nil {
				return &UsageError{Err: err}
			}
			if err := c.complete(); err != nil {
				return &UsageError{Err: err}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			ctx, err := c.common().apply(ctx, cmd.Flags(), cmd.ErrOrStderr())
			if err != nil {
				return &UsageError{Err: err}
			}
			// controller-runtime logs through its own global logger; without
			// one it prints a stack trace instead of its messages.
			ctrllog.SetLogger(klog.FromContext(ctx))
			logStartup(klog.FromContext(ctx), use)
			return c.run(ctx)
		},
	}
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &UsageError{Err: err} })
	c.common().add(cmd.Flags(), spec)
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

// validate rejects limits that would stall the client and a kubeconfig
// that does not exist.
func (f *clientFlags) validate() error {
	if !(f.qps > 0) || math.IsInf(f.qps, 0) || f.burst <= 0 {
		return fmt.Errorf("--%s and --%s: must be positive, got %g and %d", f.spec.qpsFlag, f.spec.burstFlag, f.qps, f.burst)
	}
	return validateFile("--kubeconfig", f.kubeconfig)
}

// validateFile checks that a file flag, when set, names a readable file.
func validateFile(flag, path string) error {
	if path == "" {
		return nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return &fileError{flag: flag, err: err}
	}
	if st.IsDir() {
		return &fileError{flag: flag, err: fmt.Errorf("%s is a directory", path)}
	}
	return nil
}

// fileError says that a flag names a file that cannot be read. A manifest
// that mounts the file makes it valid in its Pod; the flag itself parsed.
type fileError struct {
	flag string
	err  error
}

// Error names the flag and the reason.
func (e *fileError) Error() string { return e.flag + ": " + e.err.Error() }

// Unwrap returns the reason.
func (e *fileError) Unwrap() error { return e.err }

// validateAddress checks a host:port flag (the host may be empty); empty
// is accepted when allowEmpty.
func validateAddress(flag, addr string, allowEmpty bool) error {
	if addr == "" && allowEmpty {
		return nil
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%s: %q is not host:port: %w", flag, addr, err)
	}
	return validatePort(flag, port)
}

// validatePort checks a TCP port number (0 picks a free one).
func validatePort(flag, port string) error {
	n, err := strconv.Atoi(port)
	if err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("%s: port %q is not a number from 0 to 65535", flag, port)
	}
	return nil
}

// minLoopInterval is the shortest loop interval a command accepts: a
// shorter one only burns CPU.
const minLoopInterval = time.Second

// validateInterval checks a loop interval flag.
func validateInterval(flag string, d time.Duration) error {
	if d < minLoopInterval {
		return fmt.Errorf("%s: must be at least %v, got %v", flag, minLoopInterval, d)
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
// with the Go runtime and process collectors and kscale_build_info, which
// every component exposes.
func newProcessRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		buildinfo.NewCollector(buildinfo.Get()))
	return reg
}

// usageNoArgs refuses arguments with a usage error naming the first.
func usageNoArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return &UsageError{Err: fmt.Errorf("%s takes no arguments, got %q", cmd.CommandPath(), args[0])}
	}
	return nil
}
