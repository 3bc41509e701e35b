package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const whatIfExample = "../../examples/whatif/gep23-hvpa-vs-hpa-vpa.yaml"

// TestWhatIfOutputs runs the example with --check in JSON and text, with a
// report and a sweep, and checks what each output holds.
func TestWhatIfOutputs(t *testing.T) {
	report := filepath.Join(t.TempDir(), "r.html")
	code, out, errOut := runCLI(t, "simulate", "--check", "-o", "json", "--report", report, "--sweep", "hpa.target=100..300/100", "--sweep-bound", "200m", whatIfExample)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Results []struct {
			Configuration string             `json:"configuration"`
			Totals        map[string]float64 `json:"totals"`
			Series        []map[string]float64
		} `json:"results"`
		Checks []struct{ OK bool } `json:"checks"`
		Sweep  []struct {
			Configuration string  `json:"configuration"`
			Best          float64 `json:"best"`
			Rows          []struct{ Target float64 }
		} `json:"sweep"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Results) != 3 || doc.Results[0].Configuration != "hvpa" || len(doc.Results[1].Series) == 0 || len(doc.Checks) != 7 {
		t.Fatalf("%d results (first %q), %d checks; want 3 (hvpa first) and 7", len(doc.Results), doc.Results[0].Configuration, len(doc.Checks))
	}
	for _, k := range []string{"cpuUtilization", "cpuAboveRequestMinutes", "evictions", "replicasMean", "nodesNeededMax"} {
		if _, ok := doc.Results[0].Totals[k]; !ok {
			t.Errorf("totals lack %s", k)
		}
	}
	if len(doc.Sweep) != 2 || len(doc.Sweep[0].Rows) != 3 || doc.Sweep[0].Best < 100 || doc.Sweep[0].Best > 300 {
		t.Errorf("sweep: %+v", doc.Sweep)
	}
	page, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<table id="totals">`, "<th>hvpa</th>", "<th>hpa&#43;vpa</th>", "<polyline", "time CPU starved"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	code, out, _ = runCLI(t, "simulate", whatIfExample)
	if code != 0 || !strings.Contains(out, "evictions") || !strings.Contains(out, "ok   hvpa replicasMax <= 4") {
		t.Errorf("text: exit %d\n%s", code, out)
	}
}

// TestWhatIfUsageErrors: bad flags and bad files exit 2 naming the flag or line.
func TestWhatIfUsageErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	data, err := os.ReadFile(whatIfExample)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(strings.Replace(string(data), "startupTime: 1m", "startupTime: soon", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.yaml")
	if err := os.WriteFile(missing, []byte(strings.Replace(string(data), "trace:\n  generate:", "trace:\n  file: nothere.csv\n  generate:", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--sweep", "hpa.min=1..2", whatIfExample}, "--sweep: want hpa.target="},
		{[]string{"--sweep", "hpa.target=5..1", whatIfExample}, "--sweep: "},
		{[]string{"--seeds", "2", whatIfExample}, "--seeds: "},
		{[]string{"--sweep", "hpa.target=1..2", s1}, "--sweep: only for WorkloadWhatIf"},
		{[]string{bad}, "bad.yaml: line "},
		{[]string{missing}, "exactly one of file and generate"},
	} {
		code, _, errOut := runCLI(t, append([]string{"simulate"}, tc.args...)...)
		if code != ExitCodeUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestFitCosts fits the testdata trace (made from known costs with 1%
// noise) and checks the cost file and the error report.
func TestFitCosts(t *testing.T) {
	out := filepath.Join(t.TempDir(), "costs.yaml")
	code, _, errOut := runCLI(t, "fit-costs", "--rates", "testdata/fitcosts/rates.json", "--cpu", "testdata/fitcosts/cpu.csv",
		"--replicas", "testdata/fitcosts/replicas.csv", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"defaultCost: ", `verb: "LIST"`, "cost: 0.050", "cost: 0.0019", "cost: 0.0040"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("cost file lacks %q:\n%s", want, data)
		}
	}
	if !strings.Contains(errOut, "RMSE") || !strings.Contains(errOut, "base CPU per replica") {
		t.Errorf("stderr: %s", errOut)
	}
	for _, args := range [][]string{{"--rates", "testdata/fitcosts/rates.json"}, {"--rates", "nothere.csv", "--cpu", "testdata/fitcosts/cpu.csv"}} {
		if code, _, _ := runCLI(t, append([]string{"fit-costs"}, args...)...); code != ExitCodeUsage {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
