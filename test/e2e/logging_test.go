package e2e

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runChild runs kscale with args in a child process (see TestMain) and
// returns its exit code and combined output.
func runChild(t *testing.T, args ...string) (int, string) {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childArgsEnv+"="+string(raw))
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("running %v: %v", args, err)
	}
	return cmd.ProcessState.ExitCode(), string(out)
}

// TestLoggingApplied runs a component as its own process and checks that
// the logger it logs through honours -v, --logging-format and --log-file
// with --logtostderr=false, and that a klog flag without effect is named in
// a warning.
func TestLoggingApplied(t *testing.T) {
	dir := t.TempDir()
	// A kubeconfig that exists but does not parse passes the flag checks
	// and fails the run (exit 1) after the logging flags are applied.
	broken := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(broken, []byte("not: [a kubeconfig"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := "--kubeconfig=" + broken
	code, out := runChild(t, "vpa-updater", missing, "-v=0", "--stderrthreshold=info", "--logtostderr=true")
	if code != 1 || strings.Contains(out, "Logging configured") || strings.Contains(out, "Warning") {
		t.Errorf("-v=0: exit %d, output:\n%s\nwant exit 1 without the V(1) line or a warning", code, out)
	}
	code, out = runChild(t, "vpa-updater", missing, "-v=1")
	if code != 1 || !strings.Contains(out, "Logging configured") {
		t.Errorf("-v=1: exit %d, output:\n%s\nwant the V(1) line", code, out)
	}
	logFile := filepath.Join(dir, "logs", "kscale.log")
	code, out = runChild(t, "vpa-updater", missing, "--v=1", "--logging-format=json", "--log_file="+logFile,
		"--logtostderr=false", "--log-dir=/var/log")
	if code != 1 || strings.Contains(out, "Logging configured") {
		t.Errorf("--log-file: exit %d, output:\n%s\nwant the log lines in the file only", code, out)
	}
	data, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	var sawWarning bool
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var entry map[string]any
		if err := json.Unmarshal([]byte(line), &entry); err != nil {
			t.Fatalf("log line %q is not JSON: %v", line, err)
		}
		if strings.HasPrefix(entry["msg"].(string), "Warning") && entry["flags"] == "--log-dir" {
			sawWarning = true
		}
	}
	if !sawWarning {
		t.Errorf("log file lacks the warning naming --log-dir:\n%s", data)
	}
}
