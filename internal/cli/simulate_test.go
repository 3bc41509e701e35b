package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kscale/kscale/internal/scenario"
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
// hack/run-scenarios.sh does, and the examples too, so they stay true. The
// timelines' event types must all be ones an event expectation accepts
// (scenario.EventTypes).
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
			code, out, errOut := runCLI(t, "simulate", "--check", "--output", "json", f)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, errOut)
			}
			var doc struct {
				Events []struct{ Type string } `json:"events"`
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatalf("json: %v", err)
			}
			for _, e := range doc.Events {
				if !slices.Contains(scenario.EventTypes, e.Type) {
					t.Fatalf("timeline event type %q is not in scenario.EventTypes", e.Type)
				}
			}
		})
	}
}

// TestSimulateSeeds runs a file whose expectation depends on the random
// expander's choice under several seeds: --seeds reports exactly the seeds
// under which a single run with that seed in the file fails.
func TestSimulateSeeds(t *testing.T) {
	dir := t.TempDir()
	file := func(seed int) string {
		path := filepath.Join(dir, fmt.Sprintf("s%d.yaml", seed))
		scn := fmt.Sprintf(`apiVersion: kscale.dev/v1alpha1
kind: Scenario
name: random
duration: 10s
seed: %d
autoscaler: {expander: random}
nodeGroups:
  - {name: a, max: 5, resources: {cpu: "4", memory: 16Gi}}
  - {name: b, max: 5, resources: {cpu: "4", memory: 16Gi}}
workloads:
  - {name: p, kind: Pods, replicas: 1, pod: {requests: {cpu: "1"}}}
expect:
  - action: {type: ScaleUp, group: a, count: 1}
`, seed)
		if err := os.WriteFile(path, []byte(scn), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	const base, n = 3, 8
	var want []string
	for s := base; s < base+n; s++ {
		code, out, errOut := runCLI(t, "simulate", "--check", "--output", "none", file(s))
		switch {
		case code == 1:
			want = append(want, strconv.Itoa(s))
		case code != 0 || out != "":
			t.Fatalf("seed %d: exit %d, output %q %s", s, code, out, errOut)
		}
	}
	if len(want) == 0 || len(want) == n {
		t.Fatalf("failing seeds %v: want some but not all of %d", want, n)
	}
	code, out, errOut := runCLI(t, "simulate", "--check", "--seeds", strconv.Itoa(n), file(base))
	if code != 1 || !strings.Contains(errOut, fmt.Sprintf("expectations failed under %d of %d seeds: %s", len(want), n, strings.Join(want, ", "))) {
		t.Fatalf("exit %d, stderr %q; want failing seeds %v", code, errOut, want)
	}
	if !strings.HasSuffix(out, fmt.Sprintf("seeds: %d run, %d failed: %s\n", n, len(want), strings.Join(want, ", "))) ||
		strings.Count(out, "FAIL line 13") != len(want) || !strings.Contains(out, "seed "+want[0]+":\n") {
		t.Fatalf("text output:\n%s", out)
	}
	code, out, _ = runCLI(t, "simulate", "--seeds", strconv.Itoa(n), "--output", "json", file(base))
	var doc struct {
		FailedSeeds []int `json:"failedSeeds"`
		Runs        []struct {
			Seed int  `json:"seed"`
			OK   bool `json:"ok"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 0 {
		t.Fatalf("exit %d, json %v:\n%s", code, err, out)
	}
	if got := fmt.Sprint(doc.FailedSeeds); got != "["+strings.Join(want, " ")+"]" || len(doc.Runs) != n || doc.Runs[n-1].Seed != base+n-1 {
		t.Fatalf("json: failed %s, %d runs", got, len(doc.Runs))
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
		{"no seeds", []string{"simulate", "--seeds", "0", bad}, "--seeds: want at least 1, got 0"},
		{"seeds with a report", []string{"simulate", "--seeds", "2", "--report", filepath.Join(dir, "r.html"), bad}, "--report: writes the report of one run"},
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
	for _, want := range []string{`id="nodes-chart"`, `{"name":"ng-1"`, `<td>ScaleUp</td>`} {
		if !strings.Contains(string(html), want) {
			t.Fatalf("report lacks %q", want)
		}
	}
	// uPlot's licence banner names its home page; nothing is loaded from it.
	if regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?[a-z]+:|url\(\s*["']?https?:|@import`).MatchString(string(html)) {
		t.Fatal("report loads something from the network")
	}
}
