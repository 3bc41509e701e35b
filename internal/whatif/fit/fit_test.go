package fit

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	costfile "github.com/kscale/kscale/internal/custommetrics/cost"
	"github.com/kscale/kscale/internal/whatif"
)

func TestNNLS(t *testing.T) {
	tests := []struct {
		name string
		a    [][]float64
		b    []float64
		want []float64
	}{
		{"exact", [][]float64{{1, 0}, {0, 1}, {1, 1}}, []float64{2, 3, 5}, []float64{2, 3}},
		{"negative clamped", [][]float64{{1, 0}, {0, 1}, {1, 1}}, []float64{2, -3, -1}, []float64{0.5, 0}},
		{"all zero", [][]float64{{1}, {2}}, []float64{-1, -2}, []float64{0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x, err := NNLS(tc.a, tc.b)
			if err != nil {
				t.Fatal(err)
			}
			for i := range x {
				if math.Abs(x[i]-tc.want[i]) > 1e-9 {
					t.Fatalf("got %v, want %v", x, tc.want)
				}
			}
		})
	}
}

// TestFitRecoversCosts fits a synthetic trace made from known costs with
// noise and checks the costs, the base and the error report.
func TestFitRecoversCosts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cats := []string{"LIST/cluster/pods", "GET/namespace/secrets", "PUT/resource/leases"}
	cost := []float64{0.05, 0.002, 0.004}
	rates := &whatif.Table{Start: 1000, Columns: map[string][]float64{}, Names: cats}
	cpu := &whatif.Table{Start: 1000, Columns: map[string][]float64{"cpu": nil}, Names: []string{"cpu"}}
	reps := &whatif.Table{Start: 1000, Columns: map[string][]float64{"r": nil}, Names: []string{"r"}}
	for i := range 500 {
		ts := float64(30 * i)
		rates.Times, cpu.Times, reps.Times = append(rates.Times, ts), append(cpu.Times, ts), append(reps.Times, ts)
		n := float64(2 + rng.IntN(3))
		total := 0.3 * n
		for j, c := range cats {
			v := rng.Float64() * []float64{20, 500, 100}[j]
			rates.Columns[c] = append(rates.Columns[c], v)
			total += v * cost[j]
		}
		cpu.Columns["cpu"] = append(cpu.Columns["cpu"], total*(1+0.01*rng.NormFloat64()))
		reps.Columns["r"] = append(reps.Columns["r"], n)
	}
	r, err := Fit(Input{Rates: rates, CPU: cpu, Replicas: reps})
	if err != nil {
		t.Fatal(err)
	}
	for j := range cats {
		if math.Abs(r.Costs[j]-cost[j]) > 0.05*cost[j] {
			t.Errorf("%s: cost %g, want %g", cats[j], r.Costs[j], cost[j])
		}
	}
	if math.Abs(r.BaseCPU-0.3) > 0.03 || r.R2 < 0.95 || r.RelativeError > 0.03 || r.Samples != 500 {
		t.Errorf("base %g, R² %g, relative error %g, samples %d", r.BaseCPU, r.R2, r.RelativeError, r.Samples)
	}
	var b bytes.Buffer
	if err := WriteCosts(&b, r, []float64{10, 250, 50}, "test"); err != nil {
		t.Fatal(err)
	}
	// The custom metrics provider reads the file: a round trip through its
	// parser prices every category as fitted (to the six digits written).
	table, err := costfile.Parse(b.Bytes())
	if err != nil {
		t.Fatalf("the custom metrics provider refuses the cost file: %v\n%s", err, b.String())
	}
	for j, c := range cats {
		verb, scope, resource := splitCategory(t, c)
		if got := table.Cost([]byte(verb), []byte(scope), []byte(resource)); math.Abs(got-r.Costs[j]) > 1e-5*r.Costs[j] {
			t.Errorf("%s: the provider prices it %g, the fit says %g", c, got, r.Costs[j])
		}
	}
}

// splitCategory splits a "VERB/scope/resource" category.
func splitCategory(t *testing.T, c string) (verb, scope, resource string) {
	t.Helper()
	parts := strings.Split(c, "/")
	if len(parts) != 3 {
		t.Fatalf("category %q is not VERB/scope/resource", c)
	}
	return parts[0], parts[1], parts[2]
}

func TestCategoryRuleRejectsUnknownScope(t *testing.T) {
	if _, err := categoryRule("LIST/galaxy/pods", 1); err == nil {
		t.Fatal("no error")
	}
	r, err := categoryRule("get", 1)
	if err != nil || r.verb != "get" || r.scope != "" {
		t.Fatalf("%+v %v", r, err)
	}
}
