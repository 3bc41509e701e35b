package cloudprovider

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseOptions(t *testing.T) {
	all := []string{OptionScaleDownUtilizationThreshold, OptionScaleDownGPUUtilizationThreshold, OptionScaleDownUnneededTime,
		OptionScaleDownUnreadyTime, OptionMaxNodeProvisionTime, OptionIgnoreDaemonSetsUtilization}
	val := func(k, v string) OptionValue { return OptionValue{Key: k, Source: "annotation x/" + k, Value: v} }
	tests := []struct {
		name    string
		values  []OptionValue
		allowed []string
		check   func(Options) bool
		problem []string // substrings of the error; nil = no error
	}{
		{name: "none", check: func(o Options) bool { return !o.Set() }},
		{name: "empty value is unset", values: []OptionValue{val(OptionScaleDownUnneededTime, "")}, allowed: all,
			check: func(o Options) bool { return !o.Set() }},
		{name: "all kinds", allowed: all, values: []OptionValue{
			val(OptionScaleDownUtilizationThreshold, "0.3"), val(OptionScaleDownGPUUtilizationThreshold, "0.7"),
			val(OptionScaleDownUnneededTime, "2m"), val(OptionScaleDownUnreadyTime, "0s"),
			val(OptionMaxNodeProvisionTime, "30m"), val(OptionIgnoreDaemonSetsUtilization, "true")},
			check: func(o Options) bool {
				return *o.ScaleDownUtilizationThreshold == 0.3 && *o.ScaleDownGPUUtilizationThreshold == 0.7 &&
					*o.ScaleDownUnneededTime == 2*time.Minute && *o.ScaleDownUnreadyTime == 0 &&
					*o.MaxNodeProvisionTime == 30*time.Minute && *o.IgnoreDaemonSetsUtilization
			}},
		{name: "zero or max", allowed: []string{OptionZeroOrMaxNodeScaling}, values: []OptionValue{val(OptionZeroOrMaxNodeScaling, "true")},
			check: func(o Options) bool { return o.ZeroOrMaxNodeScaling && o.Set() }},
		{name: "zero or max off", allowed: []string{OptionZeroOrMaxNodeScaling}, values: []OptionValue{val(OptionZeroOrMaxNodeScaling, "false")},
			check: func(o Options) bool { return !o.Set() }},
		{name: "zero or max bad bool", allowed: []string{OptionZeroOrMaxNodeScaling}, values: []OptionValue{val(OptionZeroOrMaxNodeScaling, "always")},
			problem: []string{"zeroormaxnodescaling", "not a boolean"}},
		{name: "bad float", allowed: all, values: []OptionValue{val(OptionScaleDownUtilizationThreshold, "half")},
			problem: []string{"annotation x/scaledownutilizationthreshold", `"half"`, "not a number"}},
		{name: "threshold out of range", allowed: all, values: []OptionValue{val(OptionScaleDownGPUUtilizationThreshold, "1.5")},
			problem: []string{"not within [0, 1]"}},
		{name: "NaN", allowed: all, values: []OptionValue{val(OptionScaleDownUtilizationThreshold, "NaN")},
			problem: []string{"not within [0, 1]"}},
		{name: "bad duration", allowed: all, values: []OptionValue{val(OptionScaleDownUnneededTime, "10")},
			problem: []string{"not a duration"}},
		{name: "negative duration", allowed: all, values: []OptionValue{val(OptionScaleDownUnreadyTime, "-1m")},
			problem: []string{"must be positive"}},
		{name: "zero provision time", allowed: all, values: []OptionValue{val(OptionMaxNodeProvisionTime, "0s")},
			problem: []string{"must be positive"}},
		{name: "bad bool", allowed: all, values: []OptionValue{val(OptionIgnoreDaemonSetsUtilization, "yes please")},
			problem: []string{"not a boolean"}},
		{name: "not allowed here", allowed: all[:2], values: []OptionValue{val(OptionMaxNodeProvisionTime, "5m")},
			problem: []string{`option "maxnodeprovisiontime" is not supported here`}},
		{name: "one bad value drops the good ones", allowed: all, values: []OptionValue{
			val(OptionScaleDownUnneededTime, "2m"), val(OptionScaleDownUnreadyTime, "soon")},
			problem: []string{"scaledownunreadytime", `"soon"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := ParseOptions("g1", tt.values, tt.allowed)
			if tt.problem == nil {
				if err != nil || !tt.check(o) {
					t.Fatalf("ParseOptions = %+v, %v", o, err)
				}
				return
			}
			var oe *OptionsError
			if !errors.As(err, &oe) || oe.Group != "g1" || o.Set() {
				t.Fatalf("ParseOptions = %+v, %v; want an *OptionsError and empty options", o, err)
			}
			for _, want := range tt.problem {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
		})
	}
}

func FuzzParseOptions(f *testing.F) {
	f.Add(OptionScaleDownUnneededTime, "10m")
	f.Add(OptionScaleDownUtilizationThreshold, "0.5")
	f.Add("other", "x")
	all := []string{OptionScaleDownUtilizationThreshold, OptionScaleDownGPUUtilizationThreshold, OptionScaleDownUnneededTime,
		OptionScaleDownUnreadyTime, OptionMaxNodeProvisionTime, OptionIgnoreDaemonSetsUtilization}
	f.Fuzz(func(t *testing.T, key, value string) {
		o, err := ParseOptions("g", []OptionValue{{Key: key, Source: "s", Value: value}}, all)
		if err != nil && o.Set() {
			t.Fatalf("options %+v half-applied with error %v", o, err)
		}
	})
}
