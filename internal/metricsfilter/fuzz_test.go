package metricsfilter

import (
	"bytes"
	"testing"
	"testing/iotest"
)

// FuzzFilter checks, for any body, that the output does not depend on how
// the input is split into reads, that every output line is an input line
// the filter selects, and that filtering the output again changes nothing.
func FuzzFilter(f *testing.F) {
	f.Add([]byte(sample), "lat")
	f.Add([]byte(sample), "apiserver_request_total")
	f.Add([]byte("# TYPE x summary\nx_sum 1\nx{q=\"0.5\"} 2\nx_count 3"), "x")
	f.Add([]byte("x_bucket 1\r\n#TYPE x counter\nx_bucket 2\n"), "x")
	f.Fuzz(func(t *testing.T, body []byte, name string) {
		flt, err := New([]string{name})
		if err != nil {
			return
		}
		var whole, bytewise, again bytes.Buffer
		if _, err := flt.Copy(&whole, bytes.NewReader(body)); err != nil {
			t.Fatal(err)
		}
		if _, err := flt.Copy(&bytewise, iotest.OneByteReader(bytes.NewReader(body))); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(whole.Bytes(), bytewise.Bytes()) {
			t.Fatalf("output depends on read sizes: %q vs %q", whole.Bytes(), bytewise.Bytes())
		}
		inputLines := map[string]bool{}
		for _, l := range bytes.SplitAfter(body, []byte("\n")) {
			inputLines[string(l)] = true
		}
		for _, l := range bytes.SplitAfter(whole.Bytes(), []byte("\n")) {
			if len(l) > 0 && !inputLines[string(l)] {
				t.Fatalf("output line %q is not an input line", l)
			}
		}
		if _, err := flt.Copy(&again, bytes.NewReader(whole.Bytes())); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again.Bytes(), whole.Bytes()) {
			t.Fatalf("filtering twice changed the output: %q vs %q", again.Bytes(), whole.Bytes())
		}
	})
}
