package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	cliflag "k8s.io/component-base/cli/flag"
	"k8s.io/component-base/featuregate"
	logsapi "k8s.io/component-base/logs/api/v1"
	"k8s.io/klog/v2"
)

// offlineLoggingFlags are the logging flags the offline commands keep:
// component-base's verbosity, per-file verbosity and format.
var offlineLoggingFlags = []string{"v", "vmodule", "logging-format"}

// offlineLogging is the logging of a command that is not a long-running
// component (simulate, snapshot): it logs to stderr and takes only
// offlineLoggingFlags, listed under their own heading in its help. The
// components' other logging flags (klog's file output, split streams,
// flush frequency, --feature-gates) steer nothing these commands do, so
// they are not registered, and passing one is a usage error naming it.
type offlineLogging struct {
	logging *logsapi.LoggingConfiguration
	gate    featuregate.MutableVersionedFeatureGate
	// flags holds the kept logging flags, for the help's heading.
	flags *pflag.FlagSet
}

// withOfflineLogging gives cmd the offline logging flags, its help and
// its flag errors; the flags are validated and applied before its RunE.
func withOfflineLogging(cmd *cobra.Command) *cobra.Command {
	o := &offlineLogging{logging: logsapi.NewLoggingConfiguration(), gate: featuregate.NewFeatureGate()}
	// Only fails on duplicate names, which the code controls.
	if err := logsapi.AddFeatureGates(o.gate); err != nil {
		panic(fmt.Sprintf("registering the logging feature gates: %v", err))
	}
	all := pflag.NewFlagSet("logging", pflag.ContinueOnError)
	logsapi.AddFlags(o.logging, all)
	o.flags = pflag.NewFlagSet("offline logging", pflag.ContinueOnError)
	fs := cmd.Flags()
	fs.SetNormalizeFunc(cliflag.WordSepNormalizeFunc)
	for _, name := range offlineLoggingFlags {
		f := all.Lookup(name)
		o.flags.AddFlag(f)
		fs.AddFlag(f)
	}
	cmd.SetFlagErrorFunc(offlineFlagError)
	cmd.SetUsageFunc(o.usage)
	run := cmd.RunE
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		ctx, err := o.apply(cmd.Context(), cmd.ErrOrStderr())
		if err != nil {
			return &UsageError{Err: err}
		}
		cmd.SetContext(ctx)
		return run(cmd, args)
	}
	return cmd
}

// apply validates the logging flags and returns ctx carrying the logger.
// In the process's own command (see withProcessLogging) the configuration
// is applied to klog, with both streams on stderr.
func (o *offlineLogging) apply(ctx context.Context, stderr io.Writer) (context.Context, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if f := o.logging.Format; f != logsapi.DefaultLogFormat && f != logsapi.JSONLogFormat {
		return ctx, fmt.Errorf("--logging-format: want %s or %s, got %q", logsapi.DefaultLogFormat, logsapi.JSONLogFormat, f)
	}
	if errs := logsapi.Validate(o.logging, o.gate, nil); len(errs) > 0 {
		return ctx, fmt.Errorf("logging flags: %w", errs.ToAggregate())
	}
	if on, _ := ctx.Value(processLoggingKey{}).(bool); on {
		opts := &logsapi.LoggingOptions{ErrorStream: stderr, InfoStream: stderr}
		if err := logsapi.ValidateAndApplyWithOptions(o.logging, opts, o.gate); err != nil {
			return ctx, fmt.Errorf("applying the logging flags: %w", err)
		}
	}
	return logr.NewContext(ctx, klog.Background()), nil
}

// usage prints the command's usage with its own flags first and the
// logging flags under their own heading.
func (o *offlineLogging) usage(cmd *cobra.Command) error {
	own := pflag.NewFlagSet("own", pflag.ContinueOnError)
	cmd.LocalFlags().VisitAll(func(f *pflag.Flag) {
		if o.flags.Lookup(f.Name) == nil {
			own.AddFlag(f)
		}
	})
	var b strings.Builder
	fmt.Fprintf(&b, "Usage:\n  %s\n\nFlags:\n%s\nLogging flags:\n%s", cmd.UseLine(), own.FlagUsages(), o.flags.FlagUsages())
	if cmd.HasAvailableInheritedFlags() {
		fmt.Fprintf(&b, "\nGlobal Flags:\n%s", cmd.InheritedFlags().FlagUsages())
	}
	_, err := io.WriteString(cmd.OutOrStderr(), b.String())
	return err
}

// offlineFlagError turns a flag error into a usage error; a logging flag
// only the components take is named with what the command takes instead.
func offlineFlagError(cmd *cobra.Command, err error) error {
	var missing *pflag.NotExistError
	if errors.As(err, &missing) && missing.GetSpecifiedName() != "" {
		name := string(cliflag.WordSepNormalizeFunc(nil, missing.GetSpecifiedName()))
		if componentLoggingFlags()[name] {
			return &UsageError{Err: fmt.Errorf("--%s: a logging flag of the long-running components; %s logs to stderr and takes only -v, --vmodule and --logging-format",
				name, cmd.CommandPath())}
		}
	}
	return &UsageError{Err: err}
}

// componentLoggingFlags are the logging and feature-gate flags the
// components take (see commonFlags) and the offline commands do not:
// klog's flags, component-base's logging flags and --feature-gates.
func componentLoggingFlags() map[string]bool {
	out := map[string]bool{"feature-gates": true}
	klogFlags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(klogFlags)
	klogFlags.VisitAll(func(f *flag.Flag) { out[strings.ReplaceAll(f.Name, "_", "-")] = true })
	fs := pflag.NewFlagSet("logging", pflag.ContinueOnError)
	logsapi.AddFlags(logsapi.NewLoggingConfiguration(), fs)
	fs.VisitAll(func(f *pflag.Flag) { out[f.Name] = true })
	for _, name := range offlineLoggingFlags {
		delete(out, name)
	}
	return out
}
