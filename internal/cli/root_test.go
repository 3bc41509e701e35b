package cli

import (
	"bytes"
	"strings"
	"testing"
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
