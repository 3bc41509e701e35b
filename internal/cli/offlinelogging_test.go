package cli

import (
	"strings"
	"testing"
)

// componentOnlyFlags are logging flags the components take and the
// offline commands must neither list nor accept.
var componentOnlyFlags = []string{"--log-file", "--logtostderr", "--alsologtostderr", "--log-dir", "--stderrthreshold",
	"--skip-headers", "--log-backtrace-at", "--one-output", "--log-flush-frequency", "--log-text-split-stream",
	"--log-json-split-stream", "--feature-gates"}

// TestOfflineHelp: the offline commands' help lists their own flags under
// "Flags:", then -v, --vmodule and --logging-format under "Logging
// flags:" where they take them, and none of the components' other logging
// flags.
func TestOfflineHelp(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		own     []string
		logging bool
	}{
		{[]string{"simulate"}, []string{"--check", "--output", "--report", "--seeds", "--sweep", "--timing"}, true},
		{[]string{"snapshot"}, []string{"--kubeconfig", "--cloud-config", "--duration", "--output", "--page-size"}, true},
		{[]string{"fit-costs"}, []string{"--rates", "--cpu", "--replicas", "--output"}, false},
		{[]string{"shadow", "report"}, []string{"--file", "--since", "--until", "--output"}, false},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errOut := runCLI(t, append(tc.args, "--help")...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			flags, logging, found := strings.Cut(out, "\nLogging flags:\n")
			if found != tc.logging {
				t.Fatalf("help has a logging heading: %t, want %t:\n%s", found, tc.logging, out)
			}
			for _, f := range tc.own {
				if !strings.Contains(flags, f+" ") && !strings.Contains(flags, f+"[") {
					t.Errorf("help lacks %s above the logging flags:\n%s", f, out)
				}
			}
			if tc.logging {
				for _, f := range []string{"-v, --v ", "--vmodule ", "--logging-format "} {
					if !strings.Contains(logging, f) {
						t.Errorf("logging flags lack %s:\n%s", f, logging)
					}
				}
			}
			for _, f := range componentOnlyFlags {
				if strings.Contains(out, f+" ") || strings.Contains(out, "[klog]") {
					t.Errorf("help lists %s or a klog flag:\n%s", f, out)
				}
			}
		})
	}
}

// TestOfflineLoggingFlags: the kept logging flags parse and run; the
// components' other logging flags, with - or _, exit 2 naming the flag;
// a bad format exits 2 naming --logging-format.
func TestOfflineLoggingFlags(t *testing.T) {
	const file = "../../test/scenarios/max-nodes-total-reason.yaml"
	for _, args := range [][]string{
		{"-v", "4"}, {"--v=2"}, {"-v=3", "--vmodule", "scale=4"}, {"--logging-format", "json"}, {"--logging_format=text"},
	} {
		code, _, errOut := runCLI(t, append(append([]string{"simulate", "-o", "none"}, args...), file)...)
		if code != 0 {
			t.Errorf("simulate %v: exit %d: %s", args, code, errOut)
		}
	}
	for _, tc := range []struct{ arg, name string }{
		{"--logtostderr", "--logtostderr"}, {"--logtostderr=false", "--logtostderr"}, {"--log_file=/tmp/x", "--log-file"},
		{"--stderrthreshold=info", "--stderrthreshold"}, {"--feature-gates=AllAlpha=true", "--feature-gates"},
		{"--log-flush-frequency=1s", "--log-flush-frequency"}, {"--logging-format=yaml", "--logging-format"},
	} {
		for _, cmd := range [][]string{{"simulate", tc.arg, file}, {"snapshot", tc.arg}} {
			code, out, errOut := runCLI(t, cmd...)
			if code != ExitCodeUsage || out != "" || !strings.Contains(errOut, "Error: "+tc.name+": ") {
				t.Errorf("%s %s: exit %d, stdout %q, stderr %q; want 2 and an error starting with %s", cmd, tc.arg, code, out, errOut, tc.name)
			}
		}
	}
}
