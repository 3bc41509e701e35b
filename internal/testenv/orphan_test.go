package testenv_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kscale/kscale/internal/testenv"
)

// childModeEnv makes the test binary act as a control-plane owner that
// prints its state and waits to be killed (see TestMain).
const childModeEnv = "KSCALE_TESTENV_CHILD_MODE"

// childReport is what the child prints once its control plane is ready.
type childReport struct {
	PIDs map[string]int
	Dir  string
}

func TestMain(m *testing.M) {
	if os.Getenv(childModeEnv) != "" {
		os.Exit(runChild())
	}
	os.Exit(m.Run())
}

func runChild() int {
	env, err := testenv.New(context.Background(), testenv.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	report, _ := json.Marshal(childReport{PIDs: env.PIDs(), Dir: env.Dir})
	fmt.Printf("READY %s\n", report)
	select {} // wait to be killed
}

// TestNoProcessOutlivesTestBinary kills a test binary that owns a running
// control plane with SIGKILL (no cleanup runs) and checks that etcd and
// kube-apiserver die with it.
func TestNoProcessOutlivesTestBinary(t *testing.T) {
	cmd := exec.CommandContext(t.Context(), os.Args[0])
	cmd.Env = append(os.Environ(), childModeEnv+"=1")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	report := readReport(t, bufio.NewScanner(out))
	t.Cleanup(func() { _ = os.RemoveAll(report.Dir) })
	if len(report.PIDs) != 2 {
		t.Fatalf("child reported components %v, want etcd and kube-apiserver", report.PIDs)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	for name, pid := range report.PIDs {
		err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, 20*time.Second, true,
			func(context.Context) (bool, error) { return !alive(pid), nil })
		if err != nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("%s (pid %d) outlived the killed test binary", name, pid)
		}
	}
}

func readReport(t *testing.T, lines *bufio.Scanner) childReport {
	t.Helper()
	for lines.Scan() {
		if rest, ok := strings.CutPrefix(lines.Text(), "READY "); ok {
			var r childReport
			if err := json.Unmarshal([]byte(rest), &r); err != nil {
				t.Fatal(err)
			}
			return r
		}
	}
	t.Fatalf("child exited before its control plane was ready: %v", lines.Err())
	return childReport{}
}

// alive reports whether pid names a process that is neither gone nor a zombie.
func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}
