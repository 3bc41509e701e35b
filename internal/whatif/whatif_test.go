package whatif

import (
	"os"
	"strings"
	"testing"
)

func readExample(t testing.TB) *File {
	t.Helper()
	data, err := os.ReadFile("../../examples/whatif/gep23-hvpa-vs-hpa-vpa.yaml")
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestExampleShowsTheGEPProblems runs the example and asserts the
// comparison the docs describe.
func TestExampleShowsTheGEPProblems(t *testing.T) {
	f := readExample(t)
	loads, err := Loads(f)
	if err != nil {
		t.Fatal(err)
	}
	res := Run(f, loads)
	hv, hpv := res[0].Totals, res[1].Totals
	if hv.ReplicasMax != 4 || hpv.ReplicasMax < 5 {
		t.Errorf("replicas max: hvpa %d (want 4, its cap), hpa+vpa %d (want more)", hv.ReplicasMax, hpv.ReplicasMax)
	}
	if hv.CPUStarvedMinutes < 100 || hpv.CPUStarvedMinutes >= hv.CPUStarvedMinutes {
		t.Errorf("starved minutes: hvpa %.1f, hpa+vpa %.1f", hv.CPUStarvedMinutes, hpv.CPUStarvedMinutes)
	}
	if hpv.Evictions == 0 {
		t.Errorf("the VPA never evicted")
	}
	for _, c := range Checks(f, res) {
		if !c.OK {
			t.Errorf("expectation failed: %s (got %g)", c.Expectation, c.Got)
		}
	}
	// the same file gives the same result
	again := Run(f, loads)
	if again[1].Totals != hpv {
		t.Errorf("not deterministic: %+v vs %+v", again[1].Totals, hpv)
	}
}

func TestParseErrorsNameTheLine(t *testing.T) {
	base, err := os.ReadFile("../../examples/whatif/gep23-hvpa-vs-hpa-vpa.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, from, to, want string
	}{
		{"unknown field", "  baseCPU: 200m", "  baseCPUs: 200m", "unknown field baseCPUs"},
		{"bad quantity", "baseMemory: 500Mi", "baseMemory: lots", `bad quantity "lots"`},
		{"bad metric", "metric: requestRate", "metric: qps", `hpa.metric: want requestRate or cpu, got "qps"`},
		{"fraction in an integer", "minReplicas: 2", "minReplicas: 2.5", "want a whole number"},
		{"efficiency factor", "factor: 0.5}", "factor: 1.5}", "workload.efficiency[0].factor"},
		{"unknown expectation metric", "metric: replicasMax, atMost: 4", "metric: replicaz, atMost: 4", `unknown metric "replicaz"`},
		{"missing rate", "rates: {get: 400, list: 10, update: 100}", "rates: {get: 400, list: 10}", `no rate for category "update"`},
		{"bad update mode", "updateMode: Auto", "updateMode: Sometimes", "vpa.updateMode"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := strings.Replace(string(base), tc.from, tc.to, 1)
			if data == string(base) {
				t.Fatalf("%q not in the example", tc.from)
			}
			_, err := Parse([]byte(data))
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "line ") {
				t.Fatalf("got %v, want an error with a line and %q", err, tc.want)
			}
		})
	}
}

func TestReadCSV(t *testing.T) {
	tb, err := ReadCSV(strings.NewReader("time,get,list\n0,10,1\n30,20,2\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := tb.At(tb.Columns["get"], 45); got != 20 {
		t.Fatalf("get at 45s: %v", got)
	}
	for _, bad := range []string{"t,get\n0,1\n", "time,get\n0,-1\n", "time,get\n30,1\n0,1\n", "time,get\n"} {
		if _, err := ReadCSV(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func FuzzParse(f *testing.F) {
	data, err := os.ReadFile("../../examples/whatif/gep23-hvpa-vs-hpa-vpa.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte("kind: WorkloadWhatIf\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := Parse(b)
		if err == nil && file == nil {
			t.Fatal("no file and no error")
		}
	})
}

func FuzzReadCSV(f *testing.F) {
	f.Add([]byte("time,get\n0,1\n30,2\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		tb, err := ReadCSV(strings.NewReader(string(b)))
		if err == nil && (len(tb.Times) == 0 || len(tb.Columns[tb.Names[0]]) != len(tb.Times)) {
			t.Fatal("inconsistent table")
		}
	})
}

// TestBaselinesAndInPlace runs the example's HPA+VPA with in-place
// resizes, a VPA alone and an HPA on CPU alone.
func TestBaselinesAndInPlace(t *testing.T) {
	f := readExample(t)
	base := f.Configurations[1]
	inPlace := base
	v := *base.VPA
	v.UpdateMode = "InPlaceOrRecreate"
	inPlace.Name, inPlace.VPA = "in-place", &v
	vpaOnly := base
	vpaOnly.Name, vpaOnly.HPA, vpaOnly.Replicas = "vpa-only", nil, 3
	hpaCPU := base
	h := *base.HPA
	h.Metric, h.Target = MetricCPU, 70
	hpaCPU.Name, hpaCPU.VPA, hpaCPU.HPA = "hpa-cpu", nil, &h
	f.Configurations = []Configuration{inPlace, vpaOnly, hpaCPU}
	loads, err := Loads(f)
	if err != nil {
		t.Fatal(err)
	}
	res := Run(f, loads)
	if r := res[0].Totals; r.Resizes == 0 || r.Evictions != 0 {
		t.Errorf("in-place: %d resizes, %d evictions; want resizes and no evictions", r.Resizes, r.Evictions)
	}
	if r := res[1].Totals; r.ReplicasMax != 3 || r.ReplicaChanges != 0 || r.Evictions == 0 {
		t.Errorf("vpa-only: replicas max %d, changes %d, evictions %d", r.ReplicasMax, r.ReplicaChanges, r.Evictions)
	}
	if r := res[2].Totals; r.ReplicaChanges == 0 || r.Evictions != 0 || r.Resizes != 0 {
		t.Errorf("hpa-cpu: %d replica changes, %d evictions, %d resizes", r.ReplicaChanges, r.Evictions, r.Resizes)
	}
}

// TestTraceFiles replays a CSV and a Prometheus export: the same rates give
// the same result as the generator's constant trace.
func TestTraceFiles(t *testing.T) {
	dir := t.TempDir()
	csv := "time,get,list,update\n0,400,10,100\n"
	prom := `{"status":"success","data":{"resultType":"matrix","result":[` +
		`{"metric":{"verb":"get"},"values":[[1767571200,"400"]]},` +
		`{"metric":{"verb":"list"},"values":[[1767571200,"10"]]},` +
		`{"metric":{"verb":"update"},"values":[[1767571200,"100"]]}]}}`
	for name, body := range map[string]string{"t.csv": csv, "t.json": prom} {
		if err := os.WriteFile(dir+"/"+name, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var got []Totals
	for _, tr := range []Trace{
		{Generate: &Generator{Rates: map[string]float64{"get": 400, "list": 10, "update": 100}}},
		{File: "t.csv"},
		{File: "t.json", CategoryLabels: []string{"verb"}},
	} {
		f := readExample(t)
		f.Dir, f.Trace, f.Duration.Duration = dir, tr, f.Duration.Duration/4
		loads, err := Loads(f)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, Run(f, loads)[1].Totals)
	}
	if got[0] != got[1] || got[0] != got[2] {
		t.Errorf("generated, CSV and Prometheus traces differ:\n%+v\n%+v\n%+v", got[0], got[1], got[2])
	}
	f := readExample(t)
	f.Dir, f.Trace = dir, Trace{File: "t.json"}
	if _, err := Loads(f); err == nil || !strings.Contains(err.Error(), `no column for category "get"`) {
		t.Errorf("default labels: %v", err)
	}
}
