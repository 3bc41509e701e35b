package vpafidelity

import (
	"testing"
	"time"
)

// TestWithoutDecayedSamples checks which samples the sub-epsilon
// neutralization leaves out: only those that may decay below epsilon.
func TestWithoutDecayedSamples(t *testing.T) {
	f := UpstreamDefaults()
	f.CPUHalfLife, f.MemoryHalfLife, f.MemoryInterval = time.Minute, time.Minute, time.Minute
	tests := []struct {
		name   string
		events []Event
		kept   []time.Duration // nil: nothing left out
	}{
		{"cpu within 9 half-lives", []Event{{At: 0, Kind: CPU}, {At: 9 * time.Minute, Kind: CPU}}, nil},
		{"cpu 10 half-lives before the last", []Event{{At: 0, Kind: CPU}, {At: 10 * time.Minute, Kind: CPU}}, []time.Duration{10 * time.Minute}},
		{"memory window within 12.5 half-lives", []Event{{At: 0, Kind: Memory}, {At: 11 * time.Minute, Kind: OOM}}, nil},
		{"memory 15 half-lives before the last", []Event{{At: 0, Kind: Memory}, {At: 15 * time.Minute, Kind: Memory}}, []time.Duration{15 * time.Minute}},
		{"old cpu, recent memory kept apart", []Event{{At: 0, Kind: Memory}, {At: time.Minute, Kind: CPU}, {At: 20 * time.Minute, Kind: CPU}},
			[]time.Duration{0, 20 * time.Minute}},
		{"restarts stay", []Event{{At: 0, Kind: Restart}, {At: 0, Kind: CPU}, {At: time.Hour, Kind: CPU}}, []time.Duration{0, time.Hour}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &Stream{Flags: f, Containers: 1, Variants: []int{0}, Events: tc.events}
			got := withoutDecayedSamples(s)
			if tc.kept == nil {
				if got != nil {
					t.Fatalf("left out samples: %v", got.Events)
				}
				return
			}
			if got == nil || len(got.Events) != len(tc.kept) {
				t.Fatalf("got %v, want events at %v", got, tc.kept)
			}
			for i, e := range got.Events {
				if e.At != tc.kept[i] {
					t.Errorf("event %d at %s, want %s", i, e.At, tc.kept[i])
				}
			}
			if len(s.Events) != len(tc.events) {
				t.Errorf("the input stream changed")
			}
		})
	}
}
