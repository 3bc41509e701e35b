package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"k8s.io/component-base/featuregate"

	"github.com/kscale/kscale/internal/vpa/admission"
	"github.com/kscale/kscale/internal/vpa/features"
	"github.com/kscale/kscale/internal/vpa/recommender"
	"github.com/kscale/kscale/internal/vpa/updater"
)

// componentCommands builds every component command, by name.
func componentCommands() map[string]*cobra.Command {
	return map[string]*cobra.Command{
		"node-autoscaler": newNodeAutoscalerCommand(),
		"vpa-recommender": newVPARecommenderCommand(),
		"vpa-updater":     newVPAUpdaterCommand(),
		"vpa-admission":   newVPAAdmissionCommand(),
		"custom-metrics":  newCustomMetricsCommand(),
		"metrics-filter":  newMetricsFilterCommand(),
	}
}

// TestCommonFlagsEveryComponent checks that every component takes the
// logging, feature-gate and profiling flags upstream components take, with
// either word separator, and rejects bad values as usage errors.
func TestCommonFlagsEveryComponent(t *testing.T) {
	accepted := []string{
		"-v=4", "--v=2", "-v", "3", "--vmodule=autoscaler*=4", "--logging-format=json", "--logging_format=text",
		"--stderrthreshold=info", "--logtostderr=true", "--alsologtostderr=false", "--log-dir=/tmp", "--log_dir=/tmp",
		"--log-file=/tmp/x.log", "--log-file-max-size=100", "--log-backtrace-at=main.go:1", "--add-dir-header",
		"--skip-headers", "--skip-log-headers", "--one-output", "--log-flush-frequency=1s", "--alsologtostderrthreshold=ERROR",
		"--legacy-stderr-threshold-behavior=false", "--feature-gates=ContextualLogging=true", "--profiling",
	}
	rejected := []string{"--logging-format=xml", "--v=high", "--stderrthreshold=loud", "--feature-gates=NoSuchGate=true"}
	for name := range componentCommands() {
		for _, arg := range accepted {
			t.Run(name+" "+arg, func(t *testing.T) {
				cmd := componentCommands()[name]
				args := []string{arg}
				if arg == "-v" {
					args = []string{"-v", "3"}
				}
				if err := cmd.ParseFlags(args); err != nil {
					t.Fatalf("parsing %q: %v", args, err)
				}
				if err := cmd.Flags().Lookup("logging-format").Value.String(); err != "text" && err != "json" {
					t.Fatalf("--logging-format = %q", err)
				}
			})
		}
		for _, arg := range rejected {
			t.Run(name+" "+arg, func(t *testing.T) {
				cmd := componentCommands()[name]
				err := cmd.ParseFlags([]string{arg})
				if err == nil {
					err = cmd.PreRunE(cmd, nil)
				}
				if err == nil {
					t.Fatalf("%s accepted", arg)
				}
			})
		}
	}
}

// TestCommonFlagDefaults checks upstream's defaults: the VPA components log
// at -v=4, the node autoscaler at 0; both copy INFO to stderr.
func TestCommonFlagDefaults(t *testing.T) {
	for name, cmd := range componentCommands() {
		want := map[string]string{"v": "0", "logging-format": "text", "logtostderr": "true", "stderrthreshold": "0", // klog prints severities as numbers: 0 is INFO

			"legacy-stderr-threshold-behavior": "false"}
		if strings.HasPrefix(name, "vpa-") {
			want["v"] = "4"
		}
		t.Run(name, func(t *testing.T) { expectDefaults(t, cmd.Flags().Lookup, want) })
	}
}

// TestVPAFeatureGates checks that the VPA components know upstream's gates
// with upstream's defaults (alpha, off) and reject unknown ones, such as
// InPlaceOrRecreate, which upstream removed in 1.7 after it went GA.
func TestVPAFeatureGates(t *testing.T) {
	for _, name := range []string{"vpa-recommender", "vpa-updater", "vpa-admission"} {
		cmd := componentCommands()[name]
		if err := cmd.ParseFlags([]string{"--feature-gates=InPlace=false,CPUStartupBoost=false,PerVPAConfig=false"}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := cmd.ParseFlags([]string{"--feature-gates=InPlaceOrRecreate=true"}); err == nil || !strings.Contains(err.Error(), "InPlaceOrRecreate") {
			t.Errorf("%s with InPlaceOrRecreate=true: error %v, want one naming the unknown gate", name, err)
		}
	}
	for name, spec := range features.Specs() {
		if spec.Default || spec.PreRelease != featuregate.Alpha {
			t.Errorf("gate %s: default %v, %s; want off, alpha (upstream VPA 1.7/1.8)", name, spec.Default, spec.PreRelease)
		}
	}
}

// TestVPAFeatureGatesReachTheComponents checks that a gate turned on by
// --feature-gates reaches the configuration of the components that honour
// it, and that the default leaves it off.
func TestVPAFeatureGatesReachTheComponents(t *testing.T) {
	upd, adm, rec := &updater.Flags{}, &admission.Flags{}, &recommender.Flags{}
	dir := t.TempDir()
	for _, f := range []string{"c", "k", "ca"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		opts component
		args []string
		got  func() features.Gates
	}{
		{"vpa-updater", upd, nil, func() features.Gates { return upd.Config().Features }},
		{"vpa-admission", adm, []string{"--tls-cert-file=" + filepath.Join(dir, "c"), "--tls-private-key=" + filepath.Join(dir, "k"), "--client-ca-file=" + filepath.Join(dir, "ca")}, func() features.Gates { return adm.Config().Features }},
		{"vpa-recommender", rec, nil, func() features.Gates { return rec.Config().Features }},
	}
	for _, tc := range tests {
		for _, on := range []bool{false, true} {
			cmd := newComponentCommand(tc.name, "", tc.opts, vpaCommonSpec)
			args := tc.args
			if on {
				args = append(slices.Clone(args), "--feature-gates=InPlace=true,PerVPAConfig=true,CPUStartupBoost=true")
			}
			if err := cmd.ParseFlags(args); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if err := cmd.PreRunE(cmd, nil); err != nil {
				t.Fatalf("%s %v: %v", tc.name, args, err)
			}
			if got := tc.got(); got != (features.Gates{InPlace: on, PerVPAConfig: on, CPUStartupBoost: on}) {
				t.Errorf("%s %v: gates %+v, want all %v", tc.name, args, got, on)
			}
		}
	}
}
