package main

import (
	"testing"
	"time"
)

func TestIncreaseParser(t *testing.T) {
	ref := time.Date(2026, 11, 27, 13, 0, 0, 0, time.UTC)
	at := time.Date(2026, 11, 27, 12, 34, 56, 123456000, time.UTC)
	tests := []struct {
		name     string
		upstream bool
		lines    []string
		want     []Increase
	}{
		{name: "kscale", lines: []string{
			`I1127 12:34:56.123456   4242 scale.go:160] "Scale-up: increasing node group size" logger="node-autoscaler" nodeGroup="bench-1" delta=25`,
		}, want: []Increase{{At: at, Group: "bench-1", Delta: 25}}},
		{name: "kscale ignores other lines", lines: []string{
			`I1127 12:34:56.123456   4242 recorder.go:111] "Autoscaler event" type="ScaleUp" nodeGroup="bench-1" delta=25`,
			`not a klog line at all`,
			`I1127 12:34:56.123456   4242 scale.go:160] "Scale-up: increasing node group size" nodeGroup="bench-1" delta=0`,
		}},
		{name: "upstream deltas from sizes", upstream: true, lines: []string{
			`I1127 12:34:56.123456       1 executor.go:142] Scale-up: setting group bench-0 size to 501`,
			`I1127 12:34:56.123456       1 executor.go:142] Scale-up: setting group bench-0 size to 525`,
			`I1127 12:34:56.123456       1 executor.go:142] Scale-up: setting group bench-1 size to 510`,
		}, want: []Increase{{At: at, Group: "bench-0", Delta: 1}, {At: at, Group: "bench-0", Delta: 24}, {At: at, Group: "bench-1", Delta: 10}}},
		{name: "upstream ignores kscale's line and the event text", upstream: true, lines: []string{
			`I1127 12:34:56.123456   4242 scale.go:160] "Scale-up: increasing node group size" nodeGroup="bench-1" delta=25`,
			`I1127 12:34:56.123456       1 executor.go:144] Scale-up: setting group bench-0 size to 525 instead of 500 (max: 2000)`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewIncreaseParser(tt.upstream, map[string]int{"bench-0": 500, "bench-1": 500})
			var got []Increase
			for _, l := range tt.lines {
				if inc, ok := p.Parse(l, ref); ok {
					got = append(got, inc)
				}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d increases %v, want %v", len(got), got, tt.want)
			}
			for i := range got {
				if !got[i].At.Equal(tt.want[i].At) || got[i].Group != tt.want[i].Group || got[i].Delta != tt.want[i].Delta {
					t.Errorf("increase %d = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestParseKlogYear(t *testing.T) {
	ref := time.Date(2027, 1, 1, 0, 0, 1, 0, time.UTC)
	at, msg, err := parseKlog(`I1231 23:59:59.500000 1 a.go:1] hello`, ref)
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2026, 12, 31, 23, 59, 59, 500000000, time.UTC); !at.Equal(want) || msg != "hello" {
		t.Errorf("parseKlog = %v %q, want %v hello", at, msg, want)
	}
	if _, _, err := parseKlog(`I1399 23:59:59.500000 1 a.go:1] bad month`, ref); err == nil {
		t.Error("month 13 parsed without error")
	}
}

func FuzzIncreaseParser(f *testing.F) {
	f.Add(`I1127 12:34:56.123456   4242 scale.go:160] "Scale-up: increasing node group size" nodeGroup="g" delta=3`, false)
	f.Add(`I1127 12:34:56.123456 1 executor.go:142] Scale-up: setting group g size to 9`, true)
	f.Add(`E0000 99:99:99.999999 x] `, true)
	ref := time.Date(2026, 11, 27, 13, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, line string, upstream bool) {
		p := NewIncreaseParser(upstream, map[string]int{"g": 5})
		inc, ok := p.Parse(line, ref)
		if ok && (inc.Delta <= 0 || inc.Group == "" || inc.At.IsZero()) {
			t.Errorf("Parse(%q) = %+v, an increase must have a group, a positive delta and a time", line, inc)
		}
	})
}
