package parse

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestSum(t *testing.T) {
	tests := []struct {
		name       string
		body       string
		wantSum    float64
		wantSeries int
		wantErr    func(error) bool
	}{
		{
			name: "spec scenario 1: sum and filters",
			body: "# HELP apiserver_request_total Counter of apiserver requests\n" +
				"some_metric 15\n" +
				"apiserver_request_total{code=\"200\"} 15\n" +
				"\n" +
				"apiserver_request_total {code=\"201\"} 16\n" +
				"apiserver_request_total 1.0056e4\n" +
				"apiserver_request_terminations_total 99\n",
			wantSum: 10087, wantSeries: 3,
		},
		{
			name:    "longer name is neither counted nor fatal",
			body:    "apiserver_request_total_extra{a=\"b\"} 7\napiserver_request_total{a=\"b\"} 3\n",
			wantSum: 3, wantSeries: 1,
		},
		{
			name:    "timestamp after value, CRLF, no final newline",
			body:    "apiserver_request_total{a=\"1\"} 4 1700000000000\r\n\tapiserver_request_total{a=\"2\"} 5",
			wantSum: 9, wantSeries: 2,
		},
		{
			name:    "quoted brace and escaped quote in label value",
			body:    `apiserver_request_total{path="/a}b",q="x\"}y"} 2` + "\n",
			wantSum: 2, wantSeries: 1,
		},
		{
			name:    "large integer and float",
			body:    "apiserver_request_total{a=\"1\"} 4294967296000\napiserver_request_total{a=\"2\"} 0.5\n",
			wantSum: 4294967296000.5, wantSeries: 2,
		},
		{name: "sum overflows", body: "apiserver_request_total{a=\"1\"} 1e308\napiserver_request_total{a=\"2\"} 1e308\n", wantErr: IsSyntaxError},
		{name: "no series", body: "# only\nsome_metric 1\n", wantErr: IsNoSeries},
		{name: "empty body", body: "", wantErr: IsNoSeries},
		{name: "unterminated label set", body: "apiserver_request_total{code=\"200\" 15\n", wantErr: IsSyntaxError},
		{name: "missing value", body: "apiserver_request_total{code=\"200\"}\n", wantErr: IsSyntaxError},
		{name: "missing value without labels", body: "apiserver_request_total\n", wantErr: IsSyntaxError},
		{name: "non-numeric value", body: "apiserver_request_total 1x\n", wantErr: IsSyntaxError},
		{name: "negative value", body: "apiserver_request_total -1\n", wantErr: IsSyntaxError},
		{name: "NaN", body: "apiserver_request_total NaN\n", wantErr: IsSyntaxError},
		{name: "Inf", body: "apiserver_request_total +Inf\n", wantErr: IsSyntaxError},
		{name: "trailing garbage", body: "apiserver_request_total 1 2 3\n", wantErr: IsSyntaxError},
		{name: "NUL byte in value", body: "apiserver_request_total 1\x00\n", wantErr: IsSyntaxError},
		{name: "overlong counter line", body: "apiserver_request_total{a=\"" + strings.Repeat("x", bufferSize) + "\"} 1\n", wantErr: IsSyntaxError},
	}
	p := NewParser(RequestTotal, Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := p.Sum(strings.NewReader(tt.body))
			if tt.wantErr != nil {
				if err == nil || !tt.wantErr(err) {
					t.Fatalf("Sum() error = %v, want a matching error", err)
				}
				if got != (Result{}) {
					t.Fatalf("Sum() = %+v on error, want zero result", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("Sum() error = %v", err)
			}
			if got.Sum != tt.wantSum || got.Series != tt.wantSeries {
				t.Fatalf("Sum() = %+v, want sum %v over %d series", got, tt.wantSum, tt.wantSeries)
			}
		})
	}
}

func TestSumSkipsOverlongForeignLine(t *testing.T) {
	body := "other_metric{a=\"" + strings.Repeat("y", 3*bufferSize) + "\"} 1\napiserver_request_total 5\n"
	got, err := NewParser(RequestTotal, Options{}).Sum(strings.NewReader(body))
	if err != nil || got.Sum != 5 {
		t.Fatalf("Sum() = %+v, %v; want 5", got, err)
	}
}

func TestSumErrorNamesLine(t *testing.T) {
	_, err := NewParser(RequestTotal, Options{}).Sum(strings.NewReader("a 1\n\napiserver_request_total{x\n"))
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 3 {
		t.Fatalf("Sum() error = %v, want a SyntaxError on line 3", err)
	}
	if !strings.Contains(err.Error(), "line 3: unterminated label set") {
		t.Fatalf("error text %q does not name line and reason", err)
	}
}

func TestSumReadErrorIsNotPartial(t *testing.T) {
	r := io.MultiReader(strings.NewReader("apiserver_request_total 5\n"), iotest.ErrReader(errors.New("boom")))
	got, err := NewParser(RequestTotal, Options{}).Sum(r)
	if err == nil || err.Error() != "boom" || got != (Result{}) {
		t.Fatalf("Sum() = %+v, %v; want zero result and the read error", got, err)
	}
}

func TestSumOneByteReads(t *testing.T) {
	body := "# c\napiserver_request_total{a=\"1\"} 2\napiserver_request_total{a=\"2\"} 3\n"
	got, err := NewParser(RequestTotal, Options{}).Sum(iotest.OneByteReader(strings.NewReader(body)))
	if err != nil || got.Sum != 5 {
		t.Fatalf("Sum() = %+v, %v; want 5", got, err)
	}
}

func TestSumStopAfterGroup(t *testing.T) {
	body := "# HELP apiserver_request_total x\n# TYPE apiserver_request_total counter\n" +
		"apiserver_request_total{a=\"1\"} 2\n\napiserver_request_total{a=\"2\"} 3\n" +
		"# HELP apiserver_response_sizes x\napiserver_response_sizes 1\n" +
		"garbage that would not parse {{{\napiserver_request_total{a=\"3\"} 100\n"
	r := strings.NewReader(body)
	got, err := NewParser(RequestTotal, Options{StopAfterGroup: true}).Sum(iotest.OneByteReader(r))
	if err != nil || got.Sum != 5 || got.Series != 2 {
		t.Fatalf("Sum() = %+v, %v; want 5 over 2 series from the first group", got, err)
	}
	if r.Len() == 0 {
		t.Fatal("the whole body was read; want reading to stop after the group")
	}
	got, err = NewParser(RequestTotal, Options{}).Sum(strings.NewReader(body))
	if err != nil || got.Sum != 105 {
		t.Fatalf("without StopAfterGroup: Sum() = %+v, %v; want 105", got, err)
	}
}
