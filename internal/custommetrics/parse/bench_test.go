package parse

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// realBody is a /metrics body captured from the test control plane's
// kube-apiserver v1.36.3 (2.1 MB, 16.8k lines, gzip 99 KB).
func realBody(b testing.TB) (plain, gz []byte) {
	b.Helper()
	gz, err := os.ReadFile("testdata/kube-apiserver-metrics.txt.gz")
	if err != nil {
		b.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		b.Fatal(err)
	}
	plain, err = io.ReadAll(zr)
	if err != nil {
		b.Fatal(err)
	}
	return plain, gz
}

// BenchmarkParseRequestTotal compares this package with a full parse by
// github.com/prometheus/common/expfmt on the same real body, plain and
// gzip. "full" reads the whole body; "grouped" stops after the counter's
// group as the scraper does. "4x" repeats the body to show that memory per
// operation does not grow with body size.
func BenchmarkParseRequestTotal(b *testing.B) {
	plain, gz := realBody(b)
	want := expfmtSum(b, bytes.NewReader(plain))
	big := bytes.Repeat(plain, 4)
	cases := []struct {
		name string
		body []byte
		gzip bool
		run  func(b *testing.B, r io.Reader) float64
	}{
		{"plain/kscale-full", plain, false, kscale(Options{})},
		{"plain/kscale-grouped", plain, false, kscale(Options{StopAfterGroup: true})},
		{"plain/kscale-grouped-weighted", plain, false, kscale(Options{StopAfterGroup: true, Costs: benchCosts})},
		{"plain/expfmt", plain, false, expfmtSum},
		{"plain-4x/kscale-full", big, false, kscale(Options{})},
		{"gzip/kscale-full", gz, true, kscale(Options{})},
		{"gzip/kscale-grouped", gz, true, kscale(Options{StopAfterGroup: true})},
		{"gzip/expfmt", gz, true, expfmtSum},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var zr gzip.Reader
			b.SetBytes(int64(len(c.body)))
			b.ReportAllocs()
			for b.Loop() {
				var r io.Reader = bytes.NewReader(c.body)
				if c.gzip {
					if err := zr.Reset(r); err != nil {
						b.Fatal(err)
					}
					r = &zr
				}
				if got := c.run(b, r); len(c.body) != len(big) && got != want {
					b.Fatalf("sum %v, want %v", got, want)
				}
			}
		})
	}
}

// benchCosts weighs every series, as the weighted rate does.
var benchCosts = costTable{{"LIST", "cluster", "pods"}: 10}

func kscale(opts Options) func(b *testing.B, r io.Reader) float64 {
	var p *Parser
	return func(b *testing.B, r io.Reader) float64 {
		if p == nil {
			p = NewParser(RequestTotal, opts)
		}
		res, err := p.Sum(r)
		if err != nil {
			b.Fatal(err)
		}
		return res.Sum
	}
}

func expfmtSum(b *testing.B, r io.Reader) float64 {
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(r)
	if err != nil {
		b.Fatal(err)
	}
	var sum float64
	for _, m := range families[RequestTotal].GetMetric() {
		sum += m.GetCounter().GetValue()
	}
	return sum
}
