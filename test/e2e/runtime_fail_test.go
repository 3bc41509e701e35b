package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kscale/kscale/internal/testenv"
)

// unreachableKubeconfig writes a kubeconfig for an API server address
// nothing listens on.
func unreachableKubeconfig(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:%d", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`, freePort(t))
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// startKscale runs the test binary as `kscale args...` in a process of its
// own.
func startKscale(t *testing.T, name string, args ...string) *testenv.Child {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return testenv.StartChild(t, name, os.Args[0], []string{"-test.run=^$"}, []string{childArgsEnv + "=" + string(raw)})
}

// waitExit waits for the child to exit and returns its code and log.
func waitExit(t *testing.T, c *testenv.Child, within time.Duration) (int, string) {
	t.Helper()
	select {
	case <-c.Done():
		return c.ExitCode(), c.LogTail()
	case <-time.After(within):
		t.Fatalf("still running after %v:\n%s", within, c.LogTail())
	}
	return 0, ""
}

// TestCommandsFailWhenCachesDoNotSync: with the API server unreachable,
// vpa-recommender and custom-metrics say what they wait for, and once
// --cache-sync-timeout passes exit non-zero with the reason (the
// recommender used to exit 0 after two silent minutes, custom-metrics to
// wait forever in silence).
func TestCommandsFailWhenCachesDoNotSync(t *testing.T) {
	kubeconfig := unreachableKubeconfig(t)
	for name, args := range map[string][]string{
		"vpa-recommender": {"vpa-recommender", "--kubeconfig", kubeconfig, "--cache-sync-timeout=3s",
			fmt.Sprintf("--address=127.0.0.1:%d", freePort(t))},
		"custom-metrics": {"custom-metrics", "--kubeconfig", kubeconfig, "--authentication-kubeconfig", kubeconfig,
			"--authorization-kubeconfig", kubeconfig, "--leader-election=false", "--cache-sync-timeout=3s",
			"--bind-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", freePort(t)), "--metrics-bind-address="},
	} {
		t.Run(name, func(t *testing.T) {
			child := startKscale(t, name, args...)
			code, log := waitExit(t, child, time.Minute)
			if code == 0 {
				t.Fatalf("exit 0, want a failure:\n%s", log)
			}
			for _, want := range []string{"Waiting for caches to sync", "cache did not sync within 3s (--cache-sync-timeout)"} {
				if !strings.Contains(log, want) {
					t.Errorf("log lacks %q:\n%s", want, log)
				}
			}
		})
	}
}

// TestVPAUpdaterStopsCleanlyOnSIGTERM runs vpa-updater against the real
// control plane, sends SIGTERM once it runs, and expects exit 0 without a
// stack trace.
func TestVPAUpdaterStopsCleanlyOnSIGTERM(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	child := startKscale(t, "vpa-updater", "vpa-updater", "--kubeconfig", env.KubeconfigPath,
		fmt.Sprintf("--address=127.0.0.1:%d", freePort(t)))
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		if child.Exited() {
			return false, fmt.Errorf("exited early")
		}
		return strings.Contains(child.LogTail(), "Starting the VPA updater"), nil
	})
	if err != nil {
		t.Fatalf("waiting for the updater to start: %v\n%s", err, child.LogTail())
	}
	if err := child.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	code, log := waitExit(t, child, time.Minute)
	if code != 0 || strings.Contains(log, "goroutine ") || strings.Contains(log, "SetLogger") {
		t.Fatalf("exit %d after SIGTERM, want 0 without a stack trace:\n%s", code, log)
	}
	// The updater's controller-runtime cache logs through the component's
	// logger: without one, controller-runtime prints a stack trace naming
	// SetLogger on its first message once the process is 30s old (checked
	// above).
}
