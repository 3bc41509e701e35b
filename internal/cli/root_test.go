package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/go-logr/logr/funcr"

	"github.com/kscale/kscale/internal/buildinfo"
)

func TestExecuteExitCodes(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{"version", []string{"version"}, 0, "kscale ", ""},
		{"unknown flag is a usage error", []string{"version", "--no-such-flag"}, ExitCodeUsage, "", "unknown flag: --no-such-flag"},
		{"unknown command is a usage error", []string{"no-such-command"}, ExitCodeUsage, "", `unknown command "no-such-command"`},
		{"no command prints help", nil, 0, "Available Commands", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := Execute(tt.args, &stdout, &stderr); code != tt.wantCode {
				t.Errorf("exit code = %d, want %d (stderr %q)", code, tt.wantCode, stderr.String())
			}
			if !strings.Contains(stdout.String(), tt.wantStdout) {
				t.Errorf("stdout = %q, want it to contain %q", stdout.String(), tt.wantStdout)
			}
			if !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("stderr = %q, want it to contain %q", stderr.String(), tt.wantStderr)
			}
		})
	}
}

func TestVersionAndStartupLog(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := Execute([]string{"version"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit code %d: %s", code, stderr.String())
	}
	info := buildinfo.Get()
	if want := "kscale " + info.String() + "\n"; stdout.String() != want {
		t.Errorf("version = %q, want %q", stdout.String(), want)
	}
	var logged []string
	log := funcr.New(func(prefix, args string) { logged = append(logged, args) }, funcr.Options{})
	logStartup(log, "vpa-updater")
	if len(logged) != 1 {
		t.Fatalf("logged %d lines, want 1", len(logged))
	}
	for _, want := range []string{`"component"="vpa-updater"`, `"version"="` + info.Version + `"`, `"revision"="` + info.Revision + `"`, `"buildDate"=`, `"goVersion"=`} {
		if !strings.Contains(logged[0], want) {
			t.Errorf("start-up log %s lacks %s", logged[0], want)
		}
	}
}

func TestProcessRegistryHasBuildInfo(t *testing.T) {
	families, err := newProcessRegistry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == buildinfo.MetricName {
			if len(f.GetMetric()) != 1 || f.GetMetric()[0].GetGauge().GetValue() != 1 {
				t.Errorf("%s = %v, want one series of 1", buildinfo.MetricName, f.GetMetric())
			}
			return
		}
	}
	t.Errorf("%s missing from the process registry", buildinfo.MetricName)
}
