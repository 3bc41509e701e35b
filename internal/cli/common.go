package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-logr/logr"
	"github.com/spf13/pflag"
	cliflag "k8s.io/component-base/cli/flag"
	"k8s.io/component-base/featuregate"
	logsapi "k8s.io/component-base/logs/api/v1"
	_ "k8s.io/component-base/logs/json/register" // --logging-format=json, as upstream components register it
	"k8s.io/klog/v2"

	"github.com/kscale/kscale/internal/vpa/features"
)

// commonSpec is what differs between components in the flags every
// component shares: upstream's defaults and which extras exist.
type commonSpec struct {
	// verbosity is the default of -v (upstream VPA components default to 4,
	// the Cluster Autoscaler to 0).
	verbosity uint32
	// gates are the component's own feature gates besides the logging
	// gates every component has.
	gates map[featuregate.Feature]featuregate.FeatureSpec
	// defaultOnlyGates makes every gate of gates accept only its default:
	// upstream has them, kscale behaves as their defaults say.
	defaultOnlyGates bool
	// noProfiling leaves --profiling out (the component's serving library
	// registers its own).
	noProfiling bool
}

// commonFlags are the flags every component shares with its upstream
// counterpart: component-base logging (-v, --vmodule, --logging-format,
// ...), the klog flags upstream still accepts (--logtostderr,
// --stderrthreshold, --log-file, ...), --feature-gates and --profiling.
type commonFlags struct {
	spec      commonSpec
	logging   *logsapi.LoggingConfiguration
	gate      featuregate.MutableVersionedFeatureGate
	klog      *flag.FlagSet
	profiling bool
}

// klogLegacyDefaults are the klog defaults upstream mains override: both
// the Cluster Autoscaler and the VPA copy INFO and above to stderr, and CA
// opts out of the legacy threshold behaviour.
var klogLegacyDefaults = map[string]string{"stderrthreshold": "INFO", "legacy_stderr_threshold_behavior": "false"}

// klogNoEffect are klog flags that only steer klog's own file output, which
// component-base logging replaces (upstream too): accepted so command lines
// parse, with a warning when set.
var klogNoEffect = []string{"log-dir", "log-file-max-size", "one-output", "alsologtostderrthreshold", "stderrthreshold", "legacy-stderr-threshold-behavior"}

// add registers the common flags on fs and sets fs to treat '_' and '-'
// alike, as component-base's InitFlags does for upstream components.
func (c *commonFlags) add(fs *pflag.FlagSet, spec commonSpec) {
	c.spec = spec
	fs.SetNormalizeFunc(cliflag.WordSepNormalizeFunc)
	c.logging = logsapi.NewLoggingConfiguration()
	c.logging.Verbosity = logsapi.VerbosityLevel(spec.verbosity)
	logsapi.AddFlags(c.logging, fs)
	c.addKlogFlags(fs)
	c.gate = featuregate.NewFeatureGate()
	// Both calls only fail on duplicate names, which the code controls.
	if err := logsapi.AddFeatureGates(c.gate); err != nil {
		panic(fmt.Sprintf("registering the logging feature gates: %v", err))
	}
	if err := c.gate.Add(spec.gates); err != nil {
		panic(fmt.Sprintf("registering the feature gates: %v", err))
	}
	c.gate.AddFlag(fs)
	if !spec.noProfiling {
		fs.BoolVar(&c.profiling, "profiling", false, "Serve /debug/pprof on the metrics address.")
	}
}

// addKlogFlags registers klog's own flags other than -v and --vmodule
// (those come from the logging configuration), bound to klog as upstream
// binds them.
func (c *commonFlags) addKlogFlags(fs *pflag.FlagSet) {
	c.klog = flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(c.klog)
	c.klog.VisitAll(func(f *flag.Flag) {
		if f.Name == "v" || f.Name == "vmodule" {
			return
		}
		if def, ok := klogLegacyDefaults[f.Name]; ok {
			// Only fails for a malformed value, and these are constants.
			_ = f.Value.Set(def)
			f.DefValue = f.Value.String()
		}
		pf := pflag.PFlagFromGoFlag(f)
		pf.Usage = "[klog] " + pf.Usage
		fs.AddFlag(pf)
	})
}

// complete validates the logging configuration and the feature gates.
func (c *commonFlags) complete() error {
	if errs := logsapi.Validate(c.logging, c.gate, nil); len(errs) > 0 {
		return fmt.Errorf("logging flags: %w", errs.ToAggregate())
	}
	if c.spec.defaultOnlyGates {
		var changed []string
		for g, spec := range c.spec.gates {
			if c.gate.Enabled(g) != spec.Default {
				changed = append(changed, fmt.Sprintf("%s=%t", g, !spec.Default))
			}
		}
		if len(changed) > 0 {
			slices.Sort(changed)
			return fmt.Errorf("--feature-gates: kscale's scheduling simulation follows the Kubernetes gates' defaults; %s is not supported", strings.Join(changed, ", "))
		}
	}
	return nil
}

// ignoredKlogFlags names the flags of klogNoEffect set to a value other
// than their default.
func (c *commonFlags) ignoredKlogFlags(fs *pflag.FlagSet) []string {
	var out []string
	for _, name := range klogNoEffect {
		if f := fs.Lookup(name); f != nil && f.Changed && f.Value.String() != f.DefValue {
			out = append(out, "--"+name)
		}
	}
	return out
}

// outputs returns where the logs go, following --log-file, --logtostderr
// and --alsologtostderr as upstream's Cluster Autoscaler does: stderr
// unless a file is named and --logtostderr=false; with --alsologtostderr,
// both.
func (c *commonFlags) outputs(stderr io.Writer) (*logsapi.LoggingOptions, error) {
	file := c.klog.Lookup("log_file").Value.String()
	toStderr := c.klog.Lookup("logtostderr").Value.String() == "true"
	also := c.klog.Lookup("alsologtostderr").Value.String() == "true"
	if file == "" || toStderr {
		return &logsapi.LoggingOptions{ErrorStream: stderr, InfoStream: stderr}, nil
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return nil, fmt.Errorf("--log-file: %w", err)
	}
	f, err := os.OpenFile(file, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("--log-file: %w", err)
	}
	var w io.Writer = f
	if also {
		w = io.MultiWriter(f, stderr)
	}
	return &logsapi.LoggingOptions{ErrorStream: w, InfoStream: w}, nil
}

// processLoggingKey marks a context whose command owns the process: only
// then is the logging configuration applied to klog, which is process-wide
// and can be applied once.
type processLoggingKey struct{}

// withProcessLogging marks ctx as the process's command context.
func withProcessLogging(ctx context.Context) context.Context {
	return context.WithValue(ctx, processLoggingKey{}, true)
}

// apply configures logging and returns ctx carrying the logger the
// component logs through. In the process's own command (see
// withProcessLogging) it applies the configuration to klog with
// component-base, so the logger in ctx and every klog user (client-go,
// controller-runtime) honour -v, --vmodule and --logging-format; in tests
// that run several commands in one process, klog stays as it is.
func (c *commonFlags) apply(ctx context.Context, fs *pflag.FlagSet, stderr io.Writer) (context.Context, error) {
	if on, _ := ctx.Value(processLoggingKey{}).(bool); on {
		opts, err := c.outputs(stderr)
		if err != nil {
			return ctx, err
		}
		if err := logsapi.ValidateAndApplyWithOptions(c.logging, opts, c.gate); err != nil {
			return ctx, fmt.Errorf("applying the logging flags: %w", err)
		}
	}
	logger := klog.Background()
	logger.V(1).Info("Logging configured", "format", c.logging.Format, "verbosity", c.logging.Verbosity)
	if ignored := c.ignoredKlogFlags(fs); len(ignored) > 0 {
		logger.Info("Warning: flags accepted for compatibility have no effect with component-base logging", "flags", strings.Join(ignored, ","))
	}
	return logr.NewContext(ctx, logger), nil
}

// vpaCommonSpec is the shared-flag spec of the three VPA components:
// upstream's -v default 4 and its feature gates (internal/vpa/features),
// all of which kscale honours.
var vpaCommonSpec = commonSpec{verbosity: 4, gates: features.Specs()}

// setVerbosity sets -v's value, for a flag of a component's upstream that
// stands for it.
func (c *commonFlags) setVerbosity(v uint32) { c.logging.Verbosity = logsapi.VerbosityLevel(v) }

// vpaGates returns the VPA feature gates the command line turned on;
// upstream's defaults (all off) when the common flags were not added.
func (c *commonFlags) vpaGates() features.Gates {
	if c.gate == nil {
		return features.Gates{}
	}
	return features.FromGate(c.gate)
}
