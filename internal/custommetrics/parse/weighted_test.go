package parse

import (
	"bytes"
	"strings"
	"testing"
)

// costTable is a cost function by exact label values, for tests.
type costTable map[[3]string]float64

func (c costTable) Cost(verb, scope, resource []byte) float64 {
	if v, ok := c[[3]string{string(verb), string(scope), string(resource)}]; ok {
		return v
	}
	return 1
}

func TestWeightedSum(t *testing.T) {
	costs := costTable{{"LIST", "cluster", "pods"}: 10, {"WATCH", "", ""}: 0, {"GET", "namespace", "se\"c"}: 3}
	tests := []struct {
		name         string
		body         string
		sum, weights float64
		wantErr      string
	}{
		{name: "costs per series",
			body: "# TYPE apiserver_request_total counter\n" +
				`apiserver_request_total{code="200",verb="LIST",scope="cluster",resource="pods"} 4` + "\n" +
				`apiserver_request_total{ verb = "WATCH" , code="200"} 100` + "\n" +
				`apiserver_request_total{verb="GET",scope="namespace",resource="se\"c"} 2` + "\n" +
				`apiserver_request_total{verb="POST",scope="namespace",resource="pods",} 5` + "\n" +
				"apiserver_request_total 7\n",
			sum: 118, weights: 40 + 0 + 6 + 5 + 7},
		{name: "label without value", body: `apiserver_request_total{verb} 1` + "\n", wantErr: "line 1: label"},
		{name: "unquoted value", body: `apiserver_request_total{verb=GET} 1` + "\n", wantErr: "not quoted"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := NewParser(RequestTotal, Options{Costs: costs}).Sum(strings.NewReader(tc.body))
			if tc.wantErr != "" {
				if err == nil || !IsSyntaxError(err) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want a syntax error with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got.Sum != tc.sum || got.Weighted != tc.weights {
				t.Fatalf("Sum() = %+v, %v; want sum %g, weighted %g", got, err, tc.sum, tc.weights)
			}
		})
	}
}

// TestWeightedSumWithoutCosts checks that without Costs nothing is weighted
// and label sets are not inspected.
func TestWeightedSumWithoutCosts(t *testing.T) {
	got, err := NewParser(RequestTotal, Options{}).Sum(strings.NewReader(`apiserver_request_total{verb} 3` + "\n"))
	if err != nil || got.Sum != 3 || got.Weighted != 0 {
		t.Fatalf("Sum() = %+v, %v", got, err)
	}
}

// TestWeightedSumRealBody checks the weighted sum of the captured body
// with unit costs equals the plain sum, and that weighing adds no allocation.
func TestWeightedSumRealBody(t *testing.T) {
	body, _ := realBody(t)
	p := NewParser(RequestTotal, Options{Costs: costTable{}})
	got, err := p.Sum(bytes.NewReader(body))
	if err != nil || got.Weighted != got.Sum || got.Series < 50 {
		t.Fatalf("Sum() = %+v, %v; want weighted == sum over many series", got, err)
	}
	plain := NewParser(RequestTotal, Options{})
	base := testing.AllocsPerRun(5, func() { _, _ = plain.Sum(bytes.NewReader(body)) })
	allocs := testing.AllocsPerRun(5, func() { _, _ = p.Sum(bytes.NewReader(body)) })
	if allocs > base {
		t.Fatalf("weighted Sum allocates %g times per body, plain %g", allocs, base)
	}
}
