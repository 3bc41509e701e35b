package custommetrics

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/kscale/kscale/internal/custommetrics/ha"
)

// gcmxFlags are gardener-custom-metrics' own flags that kscale's
// custom-metrics takes so that its Deployments run unchanged.
type gcmxFlags struct {
	fs           *pflag.FlagSet
	logLevel     int
	debug        bool
	resourceLock string
}

// gcmxDefaultLogLevel is gardener-custom-metrics' default --log-level: all
// but its verbose messages (cmd/gardener-custom-metrics/main.go).
const gcmxDefaultLogLevel = 74

// add registers the flags.
func (g *gcmxFlags) add(fs *pflag.FlagSet) {
	g.fs = fs
	fs.IntVar(&g.logLevel, "log-level", gcmxDefaultLogLevel, "gardener-custom-metrics' verbosity: messages above it are dropped (50 info, 75 verbose, 100 debug); sets -v (below 75: 0, below 100: 2, else 4) unless -v is given.")
	fs.BoolVar(&g.debug, "debug", false, "Debugging mode of gardener-custom-metrics: leader election timings of 600s/400s/80s unless the --leader-election-* durations are given.")
	fs.StringVar(&g.resourceLock, "leader-election-resource-lock", "leases", "Leader election lock kind; only leases is supported.")
}

// complete maps --debug onto the leader election timings where the kscale
// flags were not given explicitly.
func (g *gcmxFlags) complete(h *ha.Config) error {
	if g.resourceLock != "leases" {
		return fmt.Errorf("--leader-election-resource-lock: only leases is supported, got %q", g.resourceLock)
	}
	if !g.debug {
		return nil
	}
	for flag, d := range map[string]struct {
		dst *time.Duration
		v   time.Duration
	}{
		"leader-election-lease-duration": {&h.LeaseDuration, 600 * time.Second},
		"leader-election-renew-deadline": {&h.RenewDeadline, 400 * time.Second},
		"leader-election-retry-period":   {&h.RetryPeriod, 80 * time.Second},
	} {
		if !g.fs.Changed(flag) {
			*d.dst = d.v
		}
	}
	return nil
}

// Verbosity is the -v that --log-level asks for, and whether it does: only
// when --log-level is given and -v is not.
func (o *Flags) Verbosity() (uint32, bool) {
	g := &o.compat
	if !g.fs.Changed("log-level") || g.fs.Changed("v") {
		return 0, false
	}
	return gcmxVerbosity(g.logLevel), true
}

// gcmxVerbosity maps a gardener-custom-metrics log level onto klog's -v.
func gcmxVerbosity(level int) uint32 {
	switch {
	case level < 75:
		return 0
	case level < 100:
		return 2
	default:
		return 4
	}
}
