package cli

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const s1 = "../../test/scenarios/s1-priority-cascade.yaml"

// TestSimulateStdin reads the scenario from standard input for "-", as
// `kscale snapshot | kscale simulate -` does.
func TestSimulateStdin(t *testing.T) {
	data, err := os.ReadFile(s1)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	root := NewRootCommand(&stdout, &stderr)
	root.SetIn(bytes.NewReader(data))
	root.SetArgs([]string{"simulate", "--check", "-"})
	if err := root.ExecuteContext(t.Context()); err != nil {
		t.Fatalf("simulate -: %v\n%s", err, stderr.String())
	}
	if !strings.HasPrefix(stdout.String(), "Scenario: S1") {
		t.Fatalf("output starts %q", stdout.String()[:min(80, stdout.Len())])
	}
	root = NewRootCommand(&stdout, &stderr)
	root.SetIn(strings.NewReader("apiVersion: kscale.dev/v1alpha1\nkind: Scenario\nduration: x\n"))
	root.SetArgs([]string{"simulate", "-"})
	err = root.ExecuteContext(t.Context())
	var usage *UsageError
	if !errors.As(err, &usage) || !strings.Contains(err.Error(), "standard input: line 3: bad duration") {
		t.Fatalf("bad stdin: %v, want a usage error naming standard input and line 3", err)
	}
}

// TestSimulateReportPathFailsFirst: an unwritable --report fails with exit
// 2 before the simulation runs (nothing is printed), and a written report
// leaves no temporary file behind.
func TestSimulateReportPathFailsFirst(t *testing.T) {
	dir := t.TempDir()
	for _, path := range []string{filepath.Join(dir, "missing", "r.html"), dir} {
		code, out, errOut := runCLI(t, "simulate", "--report", path, s1)
		if code != ExitCodeUsage || out != "" || !strings.Contains(errOut, "--report: ") {
			t.Errorf("--report %s: exit %d, stdout %q, stderr %q; want 2, nothing printed, an error naming --report", path, code, out, errOut)
		}
	}
	report := filepath.Join(dir, "r.html")
	if code, _, errOut := runCLI(t, "simulate", "-o", "none", "--report", report, s1); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "r.html" {
		t.Fatalf("directory holds %v, want only r.html", entries)
	}
}

// TestSimulateDeterministic: two runs print the same text; wall-clock
// figures appear only with --timing.
func TestSimulateDeterministic(t *testing.T) {
	_, a, _ := runCLI(t, "simulate", s1)
	_, b, _ := runCLI(t, "simulate", s1)
	if a != b {
		t.Fatal("two runs printed different text")
	}
	if strings.Contains(a, "longest loop") {
		t.Fatal("wall-clock figure printed without --timing")
	}
	_, j, _ := runCLI(t, "simulate", "-o", "json", s1)
	if strings.Contains(j, "maxLoopWallTime") {
		t.Fatal("wall-clock figure in the JSON without --timing")
	}
	if _, c, _ := runCLI(t, "simulate", "--timing", s1); !strings.Contains(c, "longest loop") {
		t.Fatal("--timing did not print the longest loop")
	}
}

func TestVersionFlag(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		var stdout, stderr bytes.Buffer
		if code := Execute(args, &stdout, &stderr); code != 0 || !strings.HasPrefix(stdout.String(), "kscale ") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, stdout.String(), stderr.String())
		}
	}
}
