package live

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"
)

// The dry run's own objects: it never writes the running autoscaler's
// status ConfigMap or competes for its Lease.
const (
	// ShadowStatusName is a dry run's status ConfigMap by default.
	ShadowStatusName = "kscale-shadow-status"
	// ShadowLeaseName is a dry run's Lease by default.
	ShadowLeaseName = "kscale-shadow"
)

// shadowFlags configure the comparison of a dry run with the running
// autoscaler.
type shadowFlags struct {
	window time.Duration
	record string
}

func (f *shadowFlags) addFlags(fs *pflag.FlagSet) {
	fs.DurationVar(&f.window, "shadow-compare-window", time.Minute, "With --dry-run: how long a decision waits for the running autoscaler's (or the running autoscaler's for kscale's) before it is judged.")
	fs.StringVar(&f.record, "shadow-record-file", "", "With --dry-run: append every comparison verdict to this file as a JSON line, the input of `kscale shadow report`; empty records none.")
}

// check validates the flags: they need --dry-run.
func (f *shadowFlags) check(dryRun bool) error {
	switch {
	case f.window <= 0:
		return fmt.Errorf("--shadow-compare-window: must be positive, got %v", f.window)
	case f.record != "" && !dryRun:
		return errors.New("--shadow-record-file: requires --dry-run")
	}
	return nil
}

// completeDryRun gives a dry run its own status ConfigMap and Lease
// names unless set, and refuses upstream's names and the kwok provider
// (kscale's own emulated cloud, which writes nodes by design). err is a
// flag error found before, returned first.
func (o *Flags) completeDryRun(err error) error {
	if err != nil || !o.dryRun {
		return err
	}
	if o.cloud.Common.Provider == "kwok" {
		return errors.New("--dry-run: not supported with --cloud-provider=kwok (kscale's emulated cloud writes its nodes itself); use the provider of the cluster's real cloud")
	}
	if !o.fs.Changed("status-config-map-name") {
		o.statusName = ShadowStatusName
	}
	if o.statusName == StatusConfigMapName {
		return fmt.Errorf("--status-config-map-name: %q is the running autoscaler's status; --dry-run writes its own (default %s)", o.statusName, ShadowStatusName)
	}
	if !o.fs.Changed("leader-elect-resource-name") {
		o.leader.Name = ShadowLeaseName
	}
	if o.leader.Name == DefaultLeaseName {
		return fmt.Errorf("--leader-elect-resource-name: %q is the running autoscaler's Lease; --dry-run elects on its own (default %s)", o.leader.Name, ShadowLeaseName)
	}
	return nil
}
