package rate

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

var t0 = time.Date(2026, 1, 1, 1, 0, 0, 0, time.UTC)

type step struct {
	at    time.Duration // sample time relative to t0
	value float64
	uid   types.UID // default "u1"
}

func TestStoreRate(t *testing.T) {
	tests := []struct {
		name       string
		samples    []step
		queryAt    time.Duration
		wantOK     bool
		wantRate   float64
		wantWindow time.Duration
		wantAt     time.Duration
	}{
		{name: "scenario 4: 10 over 60s", samples: []step{{0, 10, ""}, {60 * time.Second, 20, ""}},
			queryAt: 70 * time.Second, wantOK: true, wantRate: 10.0 / 60, wantWindow: time.Minute, wantAt: time.Minute},
		{name: "scenario 5: sample within min gap dropped", samples: []step{{0, 100, ""}, {5 * time.Second, 105, ""}, {60 * time.Second, 160, ""}},
			queryAt: 61 * time.Second, wantOK: true, wantRate: 1, wantWindow: time.Minute, wantAt: time.Minute},
		{name: "scenario 6: newest 91s old is stale", samples: []step{{0, 1, ""}, {60 * time.Second, 61, ""}},
			queryAt: 151 * time.Second},
		{name: "scenario 6: newest 90s old is served", samples: []step{{0, 1, ""}, {60 * time.Second, 61, ""}},
			queryAt: 150 * time.Second, wantOK: true, wantRate: 1, wantWindow: time.Minute, wantAt: time.Minute},
		{name: "scenario 6: pair 601s apart", samples: []step{{0, 1, ""}, {601 * time.Second, 602, ""}},
			queryAt: 601 * time.Second},
		{name: "scenario 6: pair exactly 600s apart", samples: []step{{0, 0, ""}, {600 * time.Second, 600, ""}},
			queryAt: 600 * time.Second, wantOK: true, wantRate: 1, wantWindow: 600 * time.Second, wantAt: 600 * time.Second},
		{name: "scenario 6: single sample", samples: []step{{0, 1, ""}}, queryAt: time.Second},
		{name: "no samples", queryAt: time.Second},
		{name: "scenario 7: no value right after reset",
			samples: []step{{0, 1000, ""}, {60 * time.Second, 1600, ""}, {120 * time.Second, 50, ""}},
			queryAt: 130 * time.Second},
		{name: "scenario 7: rate after reset",
			samples: []step{{0, 1000, ""}, {60 * time.Second, 1600, ""}, {120 * time.Second, 50, ""}, {180 * time.Second, 110, ""}},
			queryAt: 190 * time.Second, wantOK: true, wantRate: 1, wantWindow: time.Minute, wantAt: 180 * time.Second},
		{name: "scenario 7: new UID starts a fresh series",
			samples: []step{{0, 10, ""}, {60 * time.Second, 70, ""}, {120 * time.Second, 5000, "u2"}},
			queryAt: 125 * time.Second},
		{name: "new UID series yields its own rate",
			samples: []step{{0, 10, ""}, {60 * time.Second, 70, ""}, {120 * time.Second, 5000, "u2"}, {180 * time.Second, 5120, "u2"}},
			queryAt: 185 * time.Second, wantOK: true, wantRate: 2, wantWindow: time.Minute, wantAt: 180 * time.Second},
		{name: "unchanged counter is a zero rate", samples: []step{{0, 7, ""}, {30 * time.Second, 7, ""}},
			queryAt: 30 * time.Second, wantOK: true, wantRate: 0, wantWindow: 30 * time.Second, wantAt: 30 * time.Second},
	}
	key := types.NamespacedName{Namespace: "shoot--p--a", Name: "kapi-1"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t)
			for _, st := range tt.samples {
				uid := st.uid
				if uid == "" {
					uid = "u1"
				}
				s.Add(key, uid, Sample{Value: st.value, At: t0.Add(st.at)})
			}
			got, ok := s.Rate(key, t0.Add(tt.queryAt))
			if ok != tt.wantOK {
				t.Fatalf("Rate() ok = %v (%+v), want %v", ok, got, tt.wantOK)
			}
			if !ok {
				return
			}
			if got.PerSecond < 0 || got.PerSecond != tt.wantRate || got.Window != tt.wantWindow || !got.At.Equal(t0.Add(tt.wantAt)) {
				t.Fatalf("Rate() = %+v, want %v/s over %s at t0+%s", got, tt.wantRate, tt.wantWindow, tt.wantAt)
			}
		})
	}
}

func TestStoreAddOutcome(t *testing.T) {
	key := types.NamespacedName{Namespace: "ns", Name: "p"}
	s := newStore(t)
	steps := []struct {
		at      time.Duration
		value   float64
		uid     types.UID
		want    Outcome
		wantLen int
	}{
		{0, 1, "a", Started, 1},
		{9 * time.Second, 2, "a", TooClose, 1},
		{10 * time.Second, 3, "a", Accepted, 2},
		{30 * time.Second, 2, "a", Started, 1},
		{31 * time.Second, 9, "b", Started, 1},
		{45 * time.Second, 9, "b", Accepted, 2},
	}
	for i, st := range steps {
		got, n := s.Add(key, st.uid, Sample{Value: st.value, At: t0.Add(st.at)})
		if got != st.want || n != st.wantLen {
			t.Fatalf("step %d: Add() = %s, %d; want %s, %d", i, got, n, st.want, st.wantLen)
		}
	}
}

func TestStoreFreshAndDelete(t *testing.T) {
	key := types.NamespacedName{Namespace: "ns", Name: "p"}
	s := newStore(t)
	s.Add(key, "a", Sample{Value: 1, At: t0})
	if !s.Fresh(key, t0.Add(90*time.Second)) || s.Fresh(key, t0.Add(91*time.Second)) {
		t.Fatal("Fresh() does not honour MaxAge")
	}
	s.Delete(key)
	if s.Fresh(key, t0) {
		t.Fatal("Fresh() after Delete() = true")
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"defaults", Config{}, true},
		{"negative min gap", Config{MinGap: -1}, false},
		{"pair gap below min gap", Config{MinGap: time.Minute, MaxPairGap: time.Second}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.Default()
			if err := tt.cfg.Validate(); (err == nil) != tt.ok {
				t.Fatalf("Validate() = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

func newStore(t *testing.T) *Store {
	t.Helper()
	cfg := Config{}
	cfg.Default()
	s, err := NewStore(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestStoreWeightedRate checks the weighted counter travels with the plain
// one: its own rate from the same pair, and a decrease of either counter
// starts a new series.
func TestStoreWeightedRate(t *testing.T) {
	key := types.NamespacedName{Namespace: "shoot--p--a", Name: "kapi-1"}
	tests := []struct {
		name         string
		samples      []Sample // one a minute from t0
		wantOK       bool
		plain, costs float64
	}{
		{name: "both rates from one pair", samples: []Sample{{Value: 10, Weighted: 100}, {Value: 70, Weighted: 400}},
			wantOK: true, plain: 1, costs: 5},
		{name: "weighted decrease alone is a reset", samples: []Sample{{Value: 10, Weighted: 100}, {Value: 70, Weighted: 50}}},
		{name: "zero costs give a zero weighted rate", samples: []Sample{{Value: 10}, {Value: 70}},
			wantOK: true, plain: 1, costs: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			for i, smp := range tc.samples {
				smp.At = t0.Add(time.Duration(i) * time.Minute)
				s.Add(key, "u1", smp)
			}
			got, ok := s.Rate(key, t0.Add(time.Minute))
			if ok != tc.wantOK || got.PerSecond != tc.plain || got.WeightedPerSecond != tc.costs {
				t.Fatalf("Rate() = %+v, %v; want ok %v, plain %g, weighted %g", got, ok, tc.wantOK, tc.plain, tc.costs)
			}
		})
	}
}
