package cloudprovider

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Options are a node group's own values of the autoscaler settings the
// upstream cluster autoscaler lets a group override (its NodeGroup
// GetOptions). A nil field keeps the global flag.
type Options struct {
	// ScaleDownUtilizationThreshold overrides --scale-down-utilization-threshold.
	ScaleDownUtilizationThreshold *float64
	// ScaleDownGPUUtilizationThreshold overrides
	// --scale-down-gpu-utilization-threshold for the group's GPU nodes.
	ScaleDownGPUUtilizationThreshold *float64
	// ScaleDownUnneededTime overrides --scale-down-unneeded-time.
	ScaleDownUnneededTime *time.Duration
	// ScaleDownUnreadyTime overrides --scale-down-unready-time.
	ScaleDownUnreadyTime *time.Duration
	// MaxNodeProvisionTime overrides --max-node-provision-time.
	MaxNodeProvisionTime *time.Duration
	// MaxNodeStartupTime overrides --max-node-startup-time for the
	// group's nodes.
	MaxNodeStartupTime *time.Duration
	// IgnoreDaemonSetsUtilization overrides --ignore-daemonsets-utilization.
	IgnoreDaemonSetsUtilization *bool
	// ZeroOrMaxNodeScaling makes the group all-or-nothing (upstream's
	// ZeroOrMaxNodeScaling; no global flag, off by default): scale-up
	// takes it from its size straight to its max size, and scale-down
	// removes its nodes only all together, when every one is removable.
	ZeroOrMaxNodeScaling bool
}

// Option keys, spelled as upstream's autoscaling options (its
// pkg/config/const.go); providers map their annotation or tag names to them.
const (
	OptionScaleDownUtilizationThreshold    = "scaledownutilizationthreshold"
	OptionScaleDownGPUUtilizationThreshold = "scaledowngpuutilizationthreshold"
	OptionScaleDownUnneededTime            = "scaledownunneededtime"
	OptionScaleDownUnreadyTime             = "scaledownunreadytime"
	OptionMaxNodeProvisionTime             = "maxnodeprovisiontime"
	OptionMaxNodeStartupTime               = "maxnodestartuptime"
	OptionIgnoreDaemonSetsUtilization      = "ignoredaemonsetsutilization"
	// OptionZeroOrMaxNodeScaling has no key in upstream's const.go (its
	// providers set the field in code, or externalgrpc's
	// zeroOrMaxNodeScaling carries it); kscale spells it as the others.
	OptionZeroOrMaxNodeScaling = "zeroormaxnodescaling"
)

// AllOptions lists every option key kscale honours.
var AllOptions = []string{OptionScaleDownUtilizationThreshold, OptionScaleDownGPUUtilizationThreshold, OptionScaleDownUnneededTime,
	OptionScaleDownUnreadyTime, OptionMaxNodeProvisionTime, OptionMaxNodeStartupTime, OptionIgnoreDaemonSetsUtilization,
	OptionZeroOrMaxNodeScaling}

// OptionValue is one option as a provider read it.
type OptionValue struct {
	// Key is the option key (one of the Option constants, or what the
	// source named when it is unknown).
	Key string
	// Source names where the value came from, for example the annotation
	// or tag key; errors name it.
	Source string
	// Value is the raw value; empty means not set.
	Value string
}

// OptionsError reports option values a group carries that kscale cannot
// use; the group then uses the global settings for every option.
type OptionsError struct {
	// Group is the node group id.
	Group string
	// Problems are one sentence per bad value, naming its source.
	Problems []string
}

// Error lists the bad values.
func (e *OptionsError) Error() string {
	return fmt.Sprintf("node group %q: ignoring its autoscaling options, using the global settings: %s",
		e.Group, strings.Join(e.Problems, "; "))
}

// ParseOptions turns the values a provider read into Options. allowed are
// the keys the provider supports (upstream's list for it); a key outside
// it, an unparsable value or one out of range is a problem. With any
// problem it returns empty Options (nothing half-applied) and an
// *OptionsError naming every bad value.
func ParseOptions(group string, values []OptionValue, allowed []string) (Options, error) {
	var o Options
	var problems []string
	for _, v := range values {
		if v.Value == "" {
			continue
		}
		if !slices.Contains(allowed, v.Key) {
			problems = append(problems, fmt.Sprintf("%s: option %q is not supported here (supported: %s)",
				v.Source, v.Key, strings.Join(allowed, ", ")))
			continue
		}
		if err := o.set(v.Key, v.Value); err != nil {
			problems = append(problems, fmt.Sprintf("%s: %q: %v", v.Source, v.Value, err))
		}
	}
	if len(problems) > 0 {
		return Options{}, &OptionsError{Group: group, Problems: problems}
	}
	return o, nil
}

// set parses one value into its field.
func (o *Options) set(key, raw string) error {
	switch key {
	case OptionScaleDownUtilizationThreshold:
		return parseFraction(raw, &o.ScaleDownUtilizationThreshold)
	case OptionScaleDownGPUUtilizationThreshold:
		return parseFraction(raw, &o.ScaleDownGPUUtilizationThreshold)
	case OptionScaleDownUnneededTime:
		return parseDuration(raw, false, &o.ScaleDownUnneededTime)
	case OptionScaleDownUnreadyTime:
		return parseDuration(raw, false, &o.ScaleDownUnreadyTime)
	case OptionMaxNodeProvisionTime:
		return parseDuration(raw, true, &o.MaxNodeProvisionTime)
	case OptionMaxNodeStartupTime:
		return parseDuration(raw, true, &o.MaxNodeStartupTime)
	case OptionIgnoreDaemonSetsUtilization:
		b, err := strconv.ParseBool(raw)
		if err != nil {
			return fmt.Errorf("not a boolean")
		}
		o.IgnoreDaemonSetsUtilization = &b
		return nil
	case OptionZeroOrMaxNodeScaling:
		b, err := strconv.ParseBool(raw)
		if err != nil {
			return fmt.Errorf("not a boolean")
		}
		o.ZeroOrMaxNodeScaling = b
		return nil
	}
	return fmt.Errorf("unknown option %q", key)
}

func parseFraction(raw string, into **float64) error {
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil {
		return fmt.Errorf("not a number")
	}
	if !(f >= 0 && f <= 1) {
		return fmt.Errorf("not within [0, 1]")
	}
	*into = &f
	return nil
}

func parseDuration(raw string, positive bool, into **time.Duration) error {
	d, err := time.ParseDuration(raw)
	switch {
	case err != nil:
		return fmt.Errorf("not a duration such as 10m")
	case d < 0 || (positive && d == 0):
		return fmt.Errorf("must be positive")
	}
	*into = &d
	return nil
}

// Set reports whether any option is set.
func (o Options) Set() bool { return o != Options{} }

// PrefixedOptions collects the options a provider keeps as prefixed keys
// (annotations or tags): the key after prefix is the option key. kind
// names the source in errors ("annotation", "tag"). The result is sorted
// by key.
func PrefixedOptions(kv map[string]string, prefix, kind string) []OptionValue {
	var out []OptionValue
	for k, v := range kv {
		if key, ok := strings.CutPrefix(k, prefix); ok {
			out = append(out, OptionValue{Key: key, Source: kind + " " + k, Value: v})
		}
	}
	slices.SortFunc(out, func(a, b OptionValue) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// GroupOptions parses a group's option values for a NodeGroup: its
// Options, or empty Options and the reason for OptionsInvalid.
func GroupOptions(group string, values []OptionValue, allowed []string) (Options, string) {
	o, err := ParseOptions(group, values, allowed)
	if err != nil {
		return Options{}, err.Error()
	}
	return o, ""
}
