package cost

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want *Table
	}{
		{"yaml", "defaultCost: 1\nrules:\n  - verb: list\n    scope: cluster\n    cost: 12.5\n  - resource: pods\n    cost: 0\n",
			&Table{DefaultCost: 1, Rules: []Rule{{Verb: "LIST", Scope: "cluster", Cost: 12.5}, {Resource: "pods", Cost: 0}}}},
		{"json", `{"defaultCost": 0.5, "rules": [{"verb": "GET", "scope": "namespace", "resource": "secrets", "cost": 2}]}`,
			&Table{DefaultCost: 0.5, Rules: []Rule{{Verb: "GET", Scope: "namespace", Resource: "secrets", Cost: 2}}}},
		{"no rules", "defaultCost: 3\n", &Table{DefaultCost: 3}},
		{"null rules", "defaultCost: 3\nrules:\n", &Table{DefaultCost: 3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, in  string
		line      int
		field     string
		msgSubstr string
	}{
		{"empty", "", 0, "", "want a map"},
		{"list at top", "- 1\n", 1, "", "want a map"},
		{"missing default", "rules: []\n", 1, "defaultCost", "required"},
		{"unknown top field", "defaultCost: 1\ndefault: 2\n", 2, "default", "unknown field"},
		{"unknown rule field", "defaultCost: 1\nrules:\n  - verb: GET\n    group: apps\n    cost: 1\n", 4, "rules[0].group", "unknown field"},
		{"twice", "defaultCost: 1\ndefaultCost: 2\n", 2, "defaultCost", "set twice"},
		{"negative", "defaultCost: 1\nrules:\n  - cost: 1\n  - verb: GET\n    cost: -2\n", 5, "rules[1].cost", ">= 0"},
		{"nan", "defaultCost: .nan\n", 1, "defaultCost", ">= 0"},
		{"inf", "defaultCost: .inf\n", 1, "defaultCost", ">= 0"},
		{"string cost", "defaultCost: \"1\"\n", 1, "defaultCost", "want a number"},
		{"missing cost", "defaultCost: 1\nrules:\n  - verb: GET\n", 3, "rules[0].cost", "required"},
		{"bad scope", "defaultCost: 1\nrules:\n  - scope: global\n    cost: 1\n", 3, "rules[0].scope", "not one of"},
		{"numeric verb", "defaultCost: 1\nrules:\n  - verb: 12\n    cost: 1\n", 3, "rules[0].verb", "label value"},
		{"empty resource", "defaultCost: 1\nrules:\n  - resource: \"\"\n    cost: 1\n", 3, "rules[0].resource", "label value"},
		{"rules not a list", "defaultCost: 1\nrules: {verb: GET}\n", 2, "rules", "want a list"},
		{"rule not a map", "defaultCost: 1\nrules: [3]\n", 2, "rules[0]", "want a map"},
		{"syntax", "defaultCost: 1\nrules: [\n", 2, "", "malformed YAML"},
		{"two documents", "defaultCost: 1\n---\ndefaultCost: 2\n", 2, "", "one document"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.in))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T), want *Error", err, err)
			}
			if e.Line != tc.line || e.Field != tc.field || !strings.Contains(e.Msg, tc.msgSubstr) {
				t.Fatalf("error = %q (line %d, field %q), want line %d, field %q, containing %q", err, e.Line, e.Field, tc.line, tc.field, tc.msgSubstr)
			}
		})
	}
}

func TestCost(t *testing.T) {
	table := &Table{DefaultCost: 1, Rules: []Rule{
		{Verb: "LIST", Scope: "cluster", Cost: 20},
		{Verb: "LIST", Resource: "pods", Cost: 5},
		{Verb: "WATCH", Cost: 0},
		{Scope: "namespace", Resource: "secrets", Cost: 2},
	}}
	tests := []struct {
		verb, scope, resource string
		want                  float64
	}{
		{"LIST", "cluster", "pods", 20}, // first match wins over the pods rule
		{"list", "cluster", "nodes", 20},
		{"LIST", "namespace", "pods", 5},
		{"WATCH", "cluster", "pods", 0},
		{"GET", "namespace", "secrets", 2},
		{"GET", "cluster", "secrets", 1},
		{"POST", "", "", 1},
	}
	for _, tc := range tests {
		if got := table.Cost([]byte(tc.verb), []byte(tc.scope), []byte(tc.resource)); got != tc.want {
			t.Errorf("Cost(%s, %s, %s) = %g, want %g", tc.verb, tc.scope, tc.resource, got, tc.want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { table.Cost([]byte("GET"), []byte("namespace"), []byte("secrets")) }); n != 0 {
		t.Errorf("Cost allocates %g times", n)
	}
}

func TestLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "costs.yaml")
	if err := os.WriteFile(path, []byte("defaultCost: 1\nrules:\n  - verb: GET\n    cost: -1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "line 4: rules[0].cost") {
		t.Fatalf("error = %v, want the path, line and field", err)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("missing file accepted")
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		t    Table
		want string
	}{
		{Table{DefaultCost: -1}, "defaultCost"},
		{Table{Rules: []Rule{{Cost: 1}, {Cost: -1}}}, "rules[1].cost"},
		{Table{Rules: []Rule{{Scope: "x"}}}, "rules[0].scope"},
		{Table{DefaultCost: 1, Rules: []Rule{{Scope: "cluster"}}}, ""},
	} {
		err := tc.t.Validate()
		if (tc.want == "") != (err == nil) || (err != nil && !strings.HasPrefix(err.Error(), tc.want)) {
			t.Errorf("Validate(%+v) = %v, want prefix %q", tc.t, err, tc.want)
		}
	}
}
