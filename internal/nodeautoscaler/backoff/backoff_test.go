package backoff

import (
	"testing"
	"time"
)

var t0 = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

func TestExponential(t *testing.T) {
	type step struct {
		at        time.Duration
		fail      bool
		remove    bool
		wantOff   bool
		wantUntil time.Duration // relative to t0, checked when fail
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"first failure backs off for the initial duration", []step{
			{at: 0, fail: true, wantOff: true, wantUntil: 5 * time.Minute},
			{at: 4 * time.Minute, wantOff: true},
			{at: 5 * time.Minute, wantOff: false},
		}},
		{"failure after the backoff ended doubles", []step{
			{at: 0, fail: true, wantOff: true, wantUntil: 5 * time.Minute},
			{at: 6 * time.Minute, fail: true, wantOff: true, wantUntil: 16 * time.Minute},
			{at: 17 * time.Minute, fail: true, wantOff: true, wantUntil: 37 * time.Minute},
			{at: 38 * time.Minute, fail: true, wantOff: true, wantUntil: 68 * time.Minute}, // capped at 30m
		}},
		{"failure during an active backoff does not double", []step{
			{at: 0, fail: true, wantOff: true, wantUntil: 5 * time.Minute},
			{at: time.Minute, fail: true, wantOff: true, wantUntil: 6 * time.Minute},
		}},
		{"history is forgotten after the reset timeout", []step{
			{at: 0, fail: true, wantOff: true, wantUntil: 5 * time.Minute},
			{at: 3*time.Hour + time.Second, fail: true, wantOff: true, wantUntil: 3*time.Hour + time.Second + 5*time.Minute},
		}},
		{"remove clears at once", []step{
			{at: 0, fail: true, wantOff: true, wantUntil: 5 * time.Minute},
			{at: time.Minute, remove: true, wantOff: false},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewExponential(5*time.Minute, 30*time.Minute, 3*time.Hour)
			for i, s := range tt.steps {
				now := t0.Add(s.at)
				b.RemoveStale(now)
				if s.remove {
					b.Remove("g")
				}
				var st Status
				if s.fail {
					st = b.Backoff("g", Reason{Code: "timeout"}, now)
					if want := t0.Add(s.wantUntil); !st.Until.Equal(want) {
						t.Fatalf("step %d: until %v, want %v", i, st.Until.Sub(t0), s.wantUntil)
					}
				} else {
					st = b.Status("g", now)
				}
				if st.BackedOff != s.wantOff {
					t.Fatalf("step %d: backed off %v, want %v", i, st.BackedOff, s.wantOff)
				}
			}
		})
	}
}

func TestInfinite(t *testing.T) {
	b := NewInfinite()
	if b.Status("g", t0).BackedOff {
		t.Fatal("backed off before any failure")
	}
	b.Backoff("g", Reason{Code: "Failed", Message: "out of servers"}, t0)
	b.RemoveStale(t0.Add(1000 * time.Hour))
	st := b.Status("g", t0.Add(1000*time.Hour))
	if !st.BackedOff || st.Reason.Code != "Failed" {
		t.Fatalf("status after 1000h: %+v", st)
	}
	b.Remove("g")
	if b.Status("g", t0).BackedOff {
		t.Fatal("still backed off after Remove")
	}
}
