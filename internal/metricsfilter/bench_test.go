package metricsfilter

import (
	"bytes"
	"io"
	"testing"

	"github.com/kscale/kscale/internal/metricsfilter/testbody"
)

// BenchmarkFilter filters the generated 3 MB kube-apiserver body down to
// apiserver_request_total, reading from memory and writing to io.Discard,
// so MB/s is the filter's own throughput on one core (target >= 200 MB/s).
// The anchor counts the body's lines with bytes.Count in the same run: the
// floor any line-by-line filter is measured against on this machine.
func BenchmarkFilter(b *testing.B) {
	body := testbody.Body(0)
	f, err := New([]string{testbody.RequestTotal})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("filter", func(b *testing.B) {
		var st Stats
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			if st, err = f.Copy(io.Discard, bytes.NewReader(body)); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(st.In), "in-B/op")
		b.ReportMetric(float64(st.Out), "out-B/op")
	})
	b.Run("anchor-count-lines", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			if bytes.Count(body, []byte("\n")) == 0 {
				b.Fatal("no lines")
			}
		}
	})
}
