package backoff

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestEntriesRoundTrip(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	stockout := Reason{Code: "InsufficientInstanceCapacity", Class: "OutOfResources", Message: "no capacity"}
	tests := []struct {
		name  string
		build func() Persistent
		fresh func() Persistent
		at    time.Time
		want  map[string]bool // group -> backed off at `at` after restore
	}{
		{
			name: "exponential keeps the end time and the doubled duration",
			build: func() Persistent {
				b := NewExponential(5*time.Minute, 30*time.Minute, 3*time.Hour)
				b.Backoff("a", stockout, t0)
				b.Backoff("a", stockout, t0.Add(6*time.Minute)) // after the first ended: 10m
				b.Backoff("b", Reason{Code: "timeout"}, t0)
				return b
			},
			fresh: func() Persistent { return NewExponential(5*time.Minute, 30*time.Minute, 3*time.Hour) },
			at:    t0.Add(14 * time.Minute),
			want:  map[string]bool{"a": true, "b": false},
		},
		{
			name: "infinite stays backed off",
			build: func() Persistent {
				b := NewInfinite()
				b.Backoff("a", stockout, t0)
				return b
			},
			fresh: func() Persistent { return NewInfinite() },
			at:    t0.Add(100 * time.Hour),
			want:  map[string]bool{"a": true, "b": false},
		},
		{
			name: "an exponential history restored into the infinite policy stays backed off",
			build: func() Persistent {
				b := NewExponential(time.Minute, time.Minute, time.Hour)
				b.Backoff("a", stockout, t0)
				return b
			},
			fresh: func() Persistent { return NewInfinite() },
			at:    t0.Add(time.Hour),
			want:  map[string]bool{"a": true},
		},
		{
			name: "infinite entries restored into the exponential policy are skipped",
			build: func() Persistent {
				b := NewInfinite()
				b.Backoff("a", stockout, t0)
				return b
			},
			fresh: func() Persistent { return NewExponential(time.Minute, time.Minute, time.Hour) },
			at:    t0,
			want:  map[string]bool{"a": false},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := tt.build()
			dst := tt.fresh()
			if err := dst.Restore(src.Entries()); err != nil {
				t.Fatal(err)
			}
			for g, want := range tt.want {
				st := dst.Status(g, tt.at)
				if st.BackedOff != want {
					t.Errorf("group %s backed off = %v, want %v", g, st.BackedOff, want)
				}
				if want && st.Reason != src.Status(g, tt.at).Reason {
					t.Errorf("group %s reason = %+v, want %+v", g, st.Reason, src.Status(g, tt.at).Reason)
				}
			}
		})
	}
}

func TestExponentialRestoreContinuesDoubling(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := NewExponential(5*time.Minute, 30*time.Minute, 3*time.Hour)
	a.Backoff("g", Reason{Code: "timeout"}, t0)
	b := NewExponential(5*time.Minute, 30*time.Minute, 3*time.Hour)
	if err := b.Restore(a.Entries()); err != nil {
		t.Fatal(err)
	}
	// The next failure after the restored backoff ended doubles it, as it
	// would have in the process that recorded it.
	st := b.Backoff("g", Reason{Code: "timeout"}, t0.Add(6*time.Minute))
	if want := t0.Add(16 * time.Minute); !st.Until.Equal(want) {
		t.Errorf("until = %v, want %v", st.Until, want)
	}
}

func TestRestoreRejectsBadEntriesAndKeepsState(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		entries []Entry
		wantErr string
	}{
		{"empty group", []Entry{{Reason: Reason{Code: "x"}}}, "entry 0: group"},
		{"negative duration", []Entry{{Group: "a", Duration: -time.Second}}, "entry 0: duration"},
		{"until without lastFailed", []Entry{{Group: "a", Until: t0}}, "entry 0: lastFailed"},
		{"duplicate group", []Entry{{Group: "a"}, {Group: "a"}}, "entry 1: group"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, b := range []Persistent{NewExponential(time.Minute, time.Hour, time.Hour), NewInfinite()} {
				b.Backoff("kept", Reason{Code: "timeout"}, t0)
				before := b.Entries()
				err := b.Restore(tt.entries)
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("%T: error %v, want one containing %q", b, err, tt.wantErr)
				}
				if !reflect.DeepEqual(b.Entries(), before) {
					t.Errorf("%T: state changed by a rejected restore", b)
				}
			}
		})
	}
}
