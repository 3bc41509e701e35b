package metricsfilter

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/kscale/kscale/internal/metricsfilter/testbody"
)

const sample = `# HELP apiserver_request_total Counter of requests.
# TYPE apiserver_request_total counter
apiserver_request_total{code="200",verb="GET"} 15
apiserver_request_total 16
apiserver_request_total_extra{a="b"} 7
# HELP lat Latency.
# TYPE lat histogram
lat_bucket{le="1"} 1
lat_bucket{le="+Inf"} 2
lat_sum 3.5
lat_count 2
lat_created 1
# TYPE cnt counter
cnt 4
cnt_count 9
untyped_sum 1
untyped 2
# some other comment
  # HELP indented Indented help.

`

func TestFilter(t *testing.T) {
	tests := []struct {
		name  string
		names []string
		want  string
	}{
		{"counter", []string{"apiserver_request_total"}, `# HELP apiserver_request_total Counter of requests.
# TYPE apiserver_request_total counter
apiserver_request_total{code="200",verb="GET"} 15
apiserver_request_total 16
`},
		{"histogram with children", []string{"lat"}, `# HELP lat Latency.
# TYPE lat histogram
lat_bucket{le="1"} 1
lat_bucket{le="+Inf"} 2
lat_sum 3.5
lat_count 2
`},
		{"counter's _count is another family", []string{"cnt"}, "# TYPE cnt counter\ncnt 4\n"},
		{"untyped family keeps suffixed series", []string{"untyped"}, "untyped_sum 1\nuntyped 2\n"},
		{"two families", []string{"cnt", "indented"}, "# TYPE cnt counter\ncnt 4\n  # HELP indented Indented help.\n"},
		{"absent family", []string{"nope"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := New(tc.names)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			st, err := f.Copy(&out, iotest.OneByteReader(strings.NewReader(sample)))
			if err != nil || out.String() != tc.want {
				t.Fatalf("Copy() = %q, %v; want %q", out.String(), err, tc.want)
			}
			if st.In != int64(len(sample)) || st.Out != int64(len(tc.want)) {
				t.Fatalf("stats %+v, want in %d, out %d", st, len(sample), len(tc.want))
			}
		})
	}
}

func TestFilterLongLines(t *testing.T) {
	long := strings.Repeat("x", 3*bufferSize)
	body := "keep{a=\"" + long + "\"} 1\ndrop{a=\"" + long + "\"} 2\nkeep 3"
	f, err := New([]string{"keep"})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := f.Copy(&out, strings.NewReader(body)); err != nil {
		t.Fatal(err)
	}
	if want := "keep{a=\"" + long + "\"} 1\nkeep 3"; out.String() != want {
		t.Fatalf("long lines: got %d bytes, want %d", out.Len(), len(want))
	}
}

func TestNewRejectsBadNames(t *testing.T) {
	for _, names := range [][]string{nil, {"a b"}, {"1abc"}, {""}, make([]string, MaxNames+1)} {
		if _, err := New(names); err == nil {
			t.Errorf("New(%q) accepted", names)
		}
	}
	var ne *NameError
	if _, err := New([]string{"ok", "bad-name"}); !errors.As(err, &ne) || ne.Name != "bad-name" {
		t.Fatalf("error %v, want a NameError naming bad-name", err)
	}
}

func TestFilterErrors(t *testing.T) {
	f, _ := New([]string{"apiserver_request_total"})
	boom := errors.New("boom")
	if _, err := f.Copy(&bytes.Buffer{}, iotest.ErrReader(boom)); !errors.Is(err, boom) {
		t.Fatalf("read error: %v", err)
	}
	if _, err := f.Copy(failWriter{boom}, strings.NewReader(sample)); !errors.Is(err, boom) {
		t.Fatalf("write error: %v", err)
	}
}

type failWriter struct{ err error }

func (w failWriter) Write([]byte) (int, error) { return 0, w.err }

// TestFilterRealisticBody checks the generated 3 MB body: the counter's
// family is all that is left, and memory does not grow with the body.
func TestFilterRealisticBody(t *testing.T) {
	body := testbody.Body(0)
	f, _ := New([]string{testbody.RequestTotal})
	var out bytes.Buffer
	st, err := f.Copy(&out, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	for _, l := range lines {
		if !strings.HasPrefix(l, testbody.RequestTotal+"{") && !strings.HasPrefix(l, "# HELP "+testbody.RequestTotal+" ") && !strings.HasPrefix(l, "# TYPE "+testbody.RequestTotal+" ") {
			t.Fatalf("unexpected line %q", l)
		}
	}
	if want := bytes.Count(body, []byte("\n"+testbody.RequestTotal+"{")) + 2; len(lines) != want {
		t.Fatalf("%d lines kept, want %d", len(lines), want)
	}
	t.Logf("%d bytes in, %d out (%.1f%%)", st.In, st.Out, 100*float64(st.Out)/float64(st.In))
	allocs := testing.AllocsPerRun(3, func() { out.Reset(); _, _ = f.Copy(&out, bytes.NewReader(body)) })
	if allocs > 1 {
		t.Fatalf("Copy allocates %g times per body", allocs)
	}
}
