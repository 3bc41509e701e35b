package cli

import (
	"context"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/klog/v2"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/kscale/kscale/internal/buildinfo"
	"github.com/kscale/kscale/internal/operator"
	"github.com/kscale/kscale/internal/vpa/features"
)

// component is a long-running subcommand's flags, declared next to the
// component's code: their registration, their conversion into the
// component's configuration, and the component built for the host.
type component interface {
	// AddFlags registers the component's own flags.
	AddFlags(fs *pflag.FlagSet)
	// Complete validates and converts the parsed flags; its errors are
	// the caller's (exit code 2).
	Complete() error
	// Host builds the component and the host's settings for it; reg takes
	// its metrics, ctx carries the logger.
	Host(ctx context.Context, reg prometheus.Registerer) (operator.Component, operator.Config, error)
}

// vpaGated is a component whose configuration carries the VPA feature
// gates of --feature-gates.
type vpaGated interface {
	SetFeatures(features.Gates)
}

// verbosityOverrider is a component with a flag of its upstream that sets
// -v (gardener-custom-metrics' --log-level).
type verbosityOverrider interface {
	Verbosity() (v uint32, set bool)
}

// newComponentCommand builds the subcommand of a component.
func newComponentCommand(use, short string, c component, spec commonSpec) *cobra.Command {
	cmd, _ := componentCommand(use, short, c, spec)
	return cmd
}

// componentCommand builds the subcommand of a component and returns its
// shared flags too. It takes no arguments. PreRunE validates every flag
// (its errors are usage errors); RunE applies the logging flags, builds
// the component and runs it in the host.
func componentCommand(use, short string, c component, spec commonSpec) (*cobra.Command, *commonFlags) {
	cmn := &commonFlags{}
	cmd := &cobra.Command{
		Use:     use,
		Short:   short,
		Args:    usageNoArgs,
		PreRunE: func(*cobra.Command, []string) error { return completeComponent(c, cmn) },
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			ctx, err := cmn.apply(ctx, cmd.Flags(), cmd.ErrOrStderr())
			if err != nil {
				return &UsageError{Err: err}
			}
			// controller-runtime logs through its own global logger; without
			// one it prints a stack trace instead of its messages.
			ctrllog.SetLogger(klog.FromContext(ctx))
			logStartup(klog.FromContext(ctx), use)
			return runComponent(ctx, c, cmn)
		},
	}
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &UsageError{Err: err} })
	cmn.add(cmd.Flags(), spec)
	c.AddFlags(cmd.Flags())
	return cmd, cmn
}

// completeComponent validates the shared flags, hands the component its
// feature gates and completes its own flags; errors are usage errors.
func completeComponent(c component, cmn *commonFlags) error {
	if err := cmn.complete(); err != nil {
		return &UsageError{Err: err}
	}
	if g, ok := c.(vpaGated); ok {
		g.SetFeatures(cmn.vpaGates())
	}
	if err := c.Complete(); err != nil {
		return &UsageError{Err: err}
	}
	if vo, ok := c.(verbosityOverrider); ok {
		if v, set := vo.Verbosity(); set {
			cmn.setVerbosity(v)
		}
	}
	return nil
}

// runComponent builds the component and runs it in the host until ctx
// ends, with the process's metrics and --profiling.
func runComponent(ctx context.Context, c component, cmn *commonFlags) error {
	reg := newProcessRegistry()
	comp, host, err := c.Host(ctx, reg)
	if err != nil {
		return err
	}
	host.Gatherer, host.Profiling = reg, cmn.profiling
	return operator.Run(ctx, host, comp)
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
