package parse

import (
	"bytes"
	"math"
	"testing"
)

// FuzzSum checks that any input either fails cleanly or yields a finite,
// non-negative sum over at least one series, and that the result does not
// depend on how the input is split into reads.
func FuzzSum(f *testing.F) {
	f.Add([]byte("apiserver_request_total{code=\"200\"} 15\n"))
	f.Add([]byte("apiserver_request_total 1.0056e4 123\n# HELP x\n"))
	f.Add([]byte("apiserver_request_total_extra{a=\"b\"} 7\n"))
	f.Add([]byte("apiserver_request_total{code=\"200\" 15\n"))
	f.Add([]byte("apiserver_request_total{verb=\"LIST\",scope=\"cluster\",resource=\"p\\\"ods\"} 3\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		grouped, err := NewParser(RequestTotal, Options{StopAfterGroup: true}).Sum(bytes.NewReader(body))
		if err == nil && (grouped.Series < 1 || grouped.Sum < 0 || math.IsInf(grouped.Sum, 0)) {
			t.Fatalf("invalid grouped result %+v", grouped)
		}
		p := NewParser(RequestTotal, Options{})
		res, err := p.Sum(bytes.NewReader(body))
		if err != nil {
			if !IsSyntaxError(err) && !IsNoSeries(err) {
				t.Fatalf("unexpected error type %T: %v", err, err)
			}
			return
		}
		if res.Series < 1 || res.Sum < 0 || math.IsNaN(res.Sum) || math.IsInf(res.Sum, 0) {
			t.Fatalf("invalid result %+v", res)
		}
		weighted, err := NewParser(RequestTotal, Options{Costs: costTable{{"LIST", "cluster", "pods"}: 2.5}}).Sum(bytes.NewReader(body))
		if err == nil && (weighted.Sum != res.Sum || weighted.Weighted < 0 || math.IsInf(weighted.Weighted, 0) || math.IsNaN(weighted.Weighted)) {
			t.Fatalf("weighted result %+v, plain %+v", weighted, res)
		}
		again, err := p.Sum(bytes.NewReader(body))
		if err != nil || again != res {
			t.Fatalf("second parse with the same Parser = %+v, %v; want %+v", again, err, res)
		}
	})
}
