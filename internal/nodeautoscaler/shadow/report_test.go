package shadow

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

const record = `{"time":"2026-11-27T12:00:00Z","kind":"scale_up","subject":"ns/a","agree":true,"reason":"same_group","kscale":"scale up g1","upstream":"pod triggered scale-up: [{g1 0->1 (max: 3)}]"}

{"time":"2026-11-27T12:01:00Z","kind":"scale_up","subject":"ns/b","agree":false,"reason":"other_group","kscale":"scale up g1","upstream":"pod triggered scale-up: [{g2 0->1 (max: 3)}]"}
{"time":"2026-11-27T12:02:00Z","kind":"scale_down","subject":"n1","agree":false,"reason":"upstream_kept_node","kscale":"remove (empty)","upstream":"nothing seen"}
`

func TestReportOverARange(t *testing.T) {
	vs, err := ParseRecord(strings.NewReader(record))
	if err != nil {
		t.Fatal(err)
	}
	all := Summarize(vs, vs[0].Time.Add(-1), vs[2].Time.Add(1))
	if all.Total != 3 || all.Agreed != 1 || len(all.Disagreements) != 2 || len(all.Reasons) != 3 {
		t.Errorf("report %+v, want 3 verdicts, 1 agreement, 2 disagreements, 3 reasons", all)
	}
	later := Summarize(vs, vs[1].Time, vs[2].Time)
	if later.Total != 1 || later.Disagreements[0].Subject != "ns/b" {
		t.Errorf("report of [12:01, 12:02) %+v, want only ns/b", later)
	}
	for name, write := range map[string]func(*bytes.Buffer) error{
		"text": func(b *bytes.Buffer) error { return all.WriteText(b) },
		"json": func(b *bytes.Buffer) error { return all.WriteJSON(b) },
		"html": func(b *bytes.Buffer) error { return all.WriteHTML(b) },
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, want := range []string{"other_group", "upstream_kept_node", "n1"} {
			if !strings.Contains(b.String(), want) {
				t.Errorf("%s report lacks %q:\n%s", name, want, b.String())
			}
		}
	}
}

func TestParseRecordNamesTheBadLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"{\"time\":\"2026-11-27T12:00:00Z\",\"kind\":\"scale_up\"}\nnot json\n", "line 2"},
		{`{"time":"2026-11-27T12:00:00Z","kind":"resize"}`, "line 1: kind"},
		{`{"kind":"scale_up"}`, "line 1: time"},
		{`{"time":"2026-11-27T12:00:00Z","kind":"scale_up","extra":1}`, "line 1"},
	}
	for _, tt := range tests {
		if _, err := ParseRecord(strings.NewReader(tt.in)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseRecord(%q) error %v, want %q", tt.in, err, tt.want)
		}
	}
}

func FuzzParseRecord(f *testing.F) {
	f.Add(record)
	f.Add(`{"time":"x"}`)
	f.Fuzz(func(t *testing.T, in string) {
		vs, err := ParseRecord(strings.NewReader(in))
		if err != nil {
			return
		}
		r := Summarize(vs, time.Time{}, time.Time{})
		if r.Agreed > r.Total || len(r.Disagreements) != r.Total-r.Agreed {
			t.Fatalf("inconsistent report %+v", r)
		}
	})
}
