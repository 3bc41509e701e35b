package yamlstrict

import (
	"strings"
	"testing"
	"unicode/utf8"
)

type testDoc struct {
	Count    int           `yaml:"count"`
	Wait     Duration      `yaml:"wait"`
	Requests Resources     `yaml:"requests"`
	Capacity *Capacity     `yaml:"capacity"`
	Nested   []testNested  `yaml:"nested"`
	Labels   K8s[[]string] `yaml:"labels"`
}

type testNested struct {
	Size int `yaml:"size"`
}

func TestDecodeStrict(t *testing.T) {
	tests := []struct {
		name, in, wantErr string
	}{
		{"valid", "count: 2\nwait: 3m\nrequests: {cpu: 500m}\ncapacity: unlimited\nnested: [{size: 1}]\nlabels: [a]\n", ""},
		{"unknown field", "count: 2\nbogus: 1\n", "line 2: unknown field bogus (in testDoc)"},
		{"repeated field", "count: 2\ncount: 3\n", "line 2"},
		{"fraction into int", "nested:\n- size: 4.5\n", "line 2: want a whole number, got 4.5"},
		{"bad duration", "wait: soon\n", `line 1: bad duration "soon"`},
		{"negative quantity", "requests:\n  cpu: -1\n", `line 2: resource "cpu": quantity "-1" is negative`},
		{"bad capacity", "capacity: lots\n", `line 1: capacity: want a non-negative number or "unlimited"`},
		{"not a map", "- a\n", "line 1: want a YAML map"},
		{"two documents", "count: 1\n---\ncount: 2\n", "only one YAML document per file"},
		{"too large", strings.Repeat("#", MaxFileSize+1), "larger than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d testDoc
			_, err := DecodeStrict([]byte(tt.in), &d)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("DecodeStrict: %v", err)
				}
				req := d.Requests.List()
				if d.Count != 2 || d.Wait.Minutes() != 3 || req.Cpu().MilliValue() != 500 || d.Capacity.Limit != -1 {
					t.Errorf("decoded %+v", d)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("DecodeStrict error %v, want it to contain %q", err, tt.wantErr)
			}
			if !IsParseError(err) {
				t.Errorf("error %v is no ParseError", err)
			}
		})
	}
}

func TestLine(t *testing.T) {
	var d testDoc
	root, err := DecodeStrict([]byte("count: 1\nnested:\n- size: 1\n- size: 2\n"), &d)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path []any
		want int
	}{{[]any{"count"}, 1}, {[]any{"nested", 1, "size"}, 4}, {[]any{"nested", 7}, 2}, {[]any{"missing"}, 1}} {
		if got := Line(root, tt.path...); got != tt.want {
			t.Errorf("Line(%v) = %d, want %d", tt.path, got, tt.want)
		}
	}
}

// FuzzDecodeStrict checks that no input makes DecodeStrict panic and that
// every failure is a ParseError with readable text.
func FuzzDecodeStrict(f *testing.F) {
	f.Add("count: 2\nwait: 3m\n")
	f.Add("labels: &a [x]\nnested: *a\n")
	f.Add("requests: {cpu: 1e30}\n")
	f.Fuzz(func(t *testing.T, in string) {
		var d testDoc
		_, err := DecodeStrict([]byte(in), &d)
		if err != nil && (!IsParseError(err) || !utf8.ValidString(err.Error()) && utf8.ValidString(in)) {
			t.Fatalf("DecodeStrict(%q) = %v, want ParseErrors", in, err)
		}
	})
}
