package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCLI runs kscale with args and returns the exit code and output, as
// Execute does, with the simulate command present.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	root := NewRootCommand(&stdout, &stderr)
	if c, _, err := root.Find([]string{"simulate"}); err != nil || c == root {
		root.AddCommand(newSimulateCommand())
	}
	root.SetArgs(args)
	err := root.ExecuteContext(t.Context())
	code := 0
	if err != nil {
		stderr.WriteString("Error: " + err.Error() + "\n")
		code = 1
		var usage *UsageError
		if errors.As(err, &usage) {
			code = ExitCodeUsage
		}
	}
	return code, stdout.String(), stderr.String()
}

// TestScenarios runs every file in test/scenarios with --check, as
// hack/run-scenarios.sh does, and the examples too, so they stay true.
func TestScenarios(t *testing.T) {
	files, err := filepath.Glob("../../test/scenarios/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenario files: %v", err)
	}
	examples, err := filepath.Glob("../../examples/scenarios/*.yaml")
	if err != nil || len(examples) == 0 {
		t.Fatalf("no example files: %v", err)
	}
	files = append(files, examples...)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			code, out, errOut := runCLI(t, "simulate", "--check", "--output", "none", f)
			if code != 0 {
				t.Fatalf("exit %d\n%s%s", code, out, errOut)
			}
			if out != "" {
				t.Fatalf("--output none printed %q", out)
			}
		})
	}
}

func TestSimulateBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("apiVersion: kscale.dev/v1alpha1\nkind: Scenario\nduration: 1m\nnodeGroupz: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown field", []string{"simulate", bad}, "line 4: unknown field nodeGroupz"},
		{"missing file", []string{"simulate", filepath.Join(dir, "nope.yaml")}, "reading scenario"},
		{"no file", []string{"simulate"}, "exactly one scenario file"},
		{"bad output", []string{"simulate", "--output", "xml", bad}, "--output"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, tt.args...)
			if code != ExitCodeUsage || !strings.Contains(errOut, tt.want) {
				t.Fatalf("exit %d, stderr %q; want exit 2 and %q", code, errOut, tt.want)
			}
		})
	}
}

func TestSimulateCheckFailsAndJSON(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	scn := `apiVersion: kscale.dev/v1alpha1
kind: Scenario
name: json
duration: 3m
nodeGroups:
  - {name: ng-1, max: 3, instanceTypes: [m5.xlarge], bootTime: 1m}
workloads:
  - {name: web, kind: ReplicaSet, replicas: 2, pod: {requests: {cpu: "3"}}}
expect:
  - action: {type: ScaleUp, group: ng-1, delta: 2, at: 0s}
  - action: {type: ScaleUp, group: ng-1, delta: 5}
`
	if err := os.WriteFile(file, []byte(scn), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "simulate", "--check", "--output", "json", "--report", filepath.Join(dir, "r.html"), file)
	if code != 1 || !strings.Contains(errOut, "1 of 2 expectations failed") {
		t.Fatalf("exit %d stderr %q", code, errOut)
	}
	var doc struct {
		Events []map[string]any `json:"events"`
		Final  struct {
			Groups map[string]struct{ Target, Ready int } `json:"groups"`
		} `json:"final"`
		Checks []struct{ OK bool } `json:"checks"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("json: %v\n%s", err, out)
	}
	first := doc.Events[0]
	if first["time"] != "0s" || first["type"] != "ScaleUp" || first["group"] != "ng-1" || first["delta"] != 2.0 {
		t.Fatalf("first event %v", first)
	}
	if g := doc.Final.Groups["ng-1"]; g.Target != 2 || g.Ready != 2 {
		t.Fatalf("final %+v", doc.Final)
	}
	if len(doc.Checks) != 2 || !doc.Checks[0].OK || doc.Checks[1].OK {
		t.Fatalf("checks %+v", doc.Checks)
	}
	html, err := os.ReadFile(filepath.Join(dir, "r.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`id="nodes-chart"`, `data-series="ng-1 target"`, `<td>ScaleUp</td>`} {
		if !strings.Contains(string(html), want) {
			t.Fatalf("report lacks %q", want)
		}
	}
	if strings.Contains(string(html), "http://") || strings.Contains(string(html), "https://") {
		t.Fatal("report refers to the network")
	}
}
