package model

import (
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

const mib = 1024 * 1024

func newTestContainer() (*ContainerState, *AggregateContainerState) {
	cfg := DefaultConfig()
	agg := NewAggregateContainerState(cfg, t0)
	return newContainerState(cfg, agg, &podState{}), agg
}

func TestCPUSamples(t *testing.T) {
	cs, agg := newTestContainer()
	steps := []struct {
		at    time.Time
		cores float64
		want  bool
	}{
		{t0, 0.5, true},
		{t0, 0.5, false},                   // same start: duplicate snapshot
		{t0.Add(-time.Minute), 0.5, false}, // older
		{t0.Add(time.Minute), -1, false},   // negative
		{t0.Add(time.Minute), 0.25, true},
	}
	for i, s := range steps {
		if got := cs.AddCPU(s.at, s.cores); got != s.want {
			t.Fatalf("step %d: AddCPU = %v, want %v", i, got, s.want)
		}
	}
	if agg.TotalSamplesCount != 2 || !agg.FirstSampleStart.Equal(t0) || !agg.LastSampleStart.Equal(t0.Add(time.Minute)) {
		t.Fatalf("aggregate bookkeeping = %d %v %v", agg.TotalSamplesCount, agg.FirstSampleStart, agg.LastSampleStart)
	}
}

func TestMemoryPeaksPerWindow(t *testing.T) {
	cs, agg := newTestContainer()
	if !cs.AddMemory(t0, 100*mib) {
		t.Fatal("first sample dropped")
	}
	if want := t0.Add(24 * time.Hour); !cs.WindowEnd().Equal(want) {
		t.Fatalf("window end after the first sample = %v, want %v", cs.WindowEnd(), want)
	}
	cs.AddMemory(t0.Add(time.Hour), 300*mib) // new peak replaces the old one
	cs.AddMemory(t0.Add(2*time.Hour), 200*mib)
	if cs.AddMemory(t0.Add(time.Hour), 500*mib) {
		t.Fatal("a sample older than the last one was accepted")
	}
	mem := agg.Memory
	if mem.MinBucket() != mem.MaxBucket() || mem.MinBucket() != mem.Options().FindBucket(300*mib) {
		t.Fatalf("window holds buckets [%d, %d], want only the 300 MiB bucket", mem.MinBucket(), mem.MaxBucket())
	}
	// Three days later: the window jumps to the end of the day holding the sample.
	cs.AddMemory(t0.Add(3*24*time.Hour+time.Hour), 100*mib)
	if want := t0.Add(4 * 24 * time.Hour); !cs.WindowEnd().Equal(want) {
		t.Fatalf("window end = %v, want %v", cs.WindowEnd(), want)
	}
	if cs.WindowPeak() != 100*mib {
		t.Fatalf("new window peak = %v, want 100 MiB", cs.WindowPeak())
	}
	w300 := mem.Weight(mem.Options().FindBucket(300 * mib))
	w100 := mem.Weight(mem.Options().FindBucket(100 * mib))
	if w100/w300 != 8 {
		t.Fatalf("peak three windows later weighs %v times the old one, want 8", w100/w300)
	}
}

func TestRecordOOM(t *testing.T) {
	tests := []struct {
		name     string
		usage    float64
		request  float64
		at       time.Duration
		wantPeak float64
		wantOK   bool
	}{
		{"request + 100 MiB wins", 200 * mib, 256 * mib, time.Hour, 356 * mib, true},
		{"20% wins for 1 GiB, in whole bytes", 200 * mib, 1024 * mib, time.Hour, 1288490188, true},
		{"usage peak above request", 300 * mib, 100 * mib, time.Hour, 400 * mib, true},
		{"too old", 200 * mib, 256 * mib, -25 * time.Hour, 200 * mib, false},
		{"before the window's start", 200 * mib, 256 * mib, -time.Minute, 200 * mib, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, _ := newTestContainer()
			cs.AddMemory(t0, tt.usage)
			if ok := cs.RecordOOM(t0.Add(tt.at), tt.request); ok != tt.wantOK {
				t.Fatalf("RecordOOM = %v, want %v", ok, tt.wantOK)
			}
			if cs.WindowPeak() != tt.wantPeak {
				t.Fatalf("window peak = %v, want %v", cs.WindowPeak(), tt.wantPeak)
			}
		})
	}
	t.Run("repeated OOMs do not compound", func(t *testing.T) {
		cs, _ := newTestContainer()
		cs.AddMemory(t0, 200*mib)
		cs.RecordOOM(t0.Add(time.Hour), 256*mib)
		cs.RecordOOM(t0.Add(2*time.Hour), 256*mib)
		if cs.WindowPeak() != 356*mib {
			t.Fatalf("window peak = %v, want 356 MiB", cs.WindowPeak())
		}
	})
}

// TestPeakRulesAsUpstream pins upstream's per-window peak rules that the
// VPA oracle (hack/vpafidelity) found kscale missing: only a sample that
// becomes the window's peak updates the usage peak an OOM bumps, a window
// that starts at 0 stays at 0, and an OOM counts as the latest memory sample.
func TestPeakRulesAsUpstream(t *testing.T) {
	t.Run("a sample below the OOM peak is not the usage peak", func(t *testing.T) {
		cs, _ := newTestContainer()
		cs.RecordOOM(t0, 105775766)
		cs.AddMemory(t0.Add(time.Second), 124834681)
		cs.RecordOOM(t0.Add(15*time.Second), 105001264)
		if want := 105775766.0 + 100*mib; cs.WindowPeak() != want {
			t.Fatalf("window peak = %v, want %v (the first OOM's)", cs.WindowPeak(), want)
		}
	})
	t.Run("a window that starts at 0 stays at 0", func(t *testing.T) {
		cs, agg := newTestContainer()
		cs.AddMemory(t0, 0)
		cs.AddMemory(t0.Add(time.Minute), 100*mib)
		if cs.WindowPeak() != 0 {
			t.Fatalf("window peak = %v, want 0", cs.WindowPeak())
		}
		if w := agg.Memory.Weight(0); !(w > 0) {
			t.Fatalf("weight of the first bucket = %v, want the zero peak's", w)
		}
	})
	t.Run("an OOM is the latest memory sample", func(t *testing.T) {
		cs, _ := newTestContainer()
		cs.AddMemory(t0, 100*mib)
		cs.RecordOOM(t0.Add(2*time.Hour), 100*mib)
		if cs.AddMemory(t0.Add(time.Hour), 300*mib) {
			t.Fatal("a memory sample older than the OOM was taken")
		}
	})
}
