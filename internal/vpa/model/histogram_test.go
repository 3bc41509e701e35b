package model

import (
	"math"
	"testing"
	"time"
)

func TestExponentialOptions(t *testing.T) {
	cfg := DefaultConfig()
	tests := []struct {
		name      string
		opts      *HistogramOptions
		lastStart float64
	}{
		{"cpu", cfg.CPUOptions(), 1021.1},
		{"memory", cfg.MemoryOptions(), 1.0211e12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if n := tt.opts.NumBuckets(); n != 176 {
				t.Fatalf("NumBuckets = %d, want 176", n)
			}
			if got := tt.opts.BucketStart(175); math.Abs(got-tt.lastStart)/tt.lastStart > 1e-4 {
				t.Fatalf("last bucket start = %v, want about %v", got, tt.lastStart)
			}
		})
	}
	cpu := cfg.CPUOptions()
	for _, c := range []struct {
		v    float64
		want int
	}{{0, 0}, {0.005, 0}, {0.01, 1}, {0.5, 25}, {1.0, 36}, {5000, 175}} {
		if got := cpu.FindBucket(c.v); got != c.want {
			t.Errorf("FindBucket(%v) = %d, want %d", c.v, got, c.want)
		}
	}
	if got := cpu.BucketStart(26); math.Abs(got-0.51113) > 1e-5 {
		t.Errorf("BucketStart(26) = %v, want 0.51113", got)
	}
	if _, err := NewExponentialOptions(1, 1, 1, 1); err == nil {
		t.Error("NewExponentialOptions accepted ratio 1")
	}
}

func TestHistogramPercentile(t *testing.T) {
	opts := DefaultConfig().CPUOptions()
	tests := []struct {
		name    string
		samples map[float64]float64 // value -> weight
		p       float64
		want    float64
	}{
		{"empty is 0", nil, 0.9, 0},
		{"upper edge of the bucket", map[float64]float64{0.5: 1}, 0.5, opts.BucketStart(26)},
		{"p90 in the high bucket", map[float64]float64{0.1: 8, 1.0: 2}, 0.9, opts.BucketStart(37)},
		{"p80 stays in the low bucket", map[float64]float64{0.1: 8, 1.0: 2}, 0.8, opts.BucketStart(9)},
		{"last bucket returns its own start", map[float64]float64{5000: 1}, 0.5, opts.BucketStart(175)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := NewHistogram(opts)
			for v, w := range tt.samples {
				h.AddSample(v, w)
			}
			if got := h.Percentile(tt.p); got != tt.want {
				t.Fatalf("Percentile(%v) = %v, want %v", tt.p, got, tt.want)
			}
		})
	}
}

func TestHistogramSubtractAndWindow(t *testing.T) {
	opts := DefaultConfig().CPUOptions()
	h := NewHistogram(opts)
	h.AddSample(0.1, 1)
	h.AddSample(1.0, 1)
	if h.MinBucket() != 8 || h.MaxBucket() != 36 {
		t.Fatalf("window = [%d, %d], want [8, 36]", h.MinBucket(), h.MaxBucket())
	}
	// As upstream, the bucket left below epsilon empties but the total
	// loses only the subtracted weight.
	h.SubtractSample(1.0, 1-bucketEpsilon/2)
	if h.MaxBucket() != 8 || math.Abs(h.TotalWeight()-(1+bucketEpsilon/2)) > 1e-12 {
		t.Fatalf("after subtracting to below epsilon: max bucket %d total %v, want 8 and %v", h.MaxBucket(), h.TotalWeight(), 1+bucketEpsilon/2)
	}
	h.SubtractSample(0.1, 5)
	if !h.IsEmpty() || h.TotalWeight() != 0 || h.MinBucket() != -1 {
		t.Fatalf("histogram not empty after subtracting everything: %+v", h)
	}
}

func TestDecayingHistogram(t *testing.T) {
	opts := DefaultConfig().CPUOptions()
	t0 := time.Date(2026, 3, 1, 7, 0, 0, 0, time.UTC)
	d := NewDecayingHistogram(opts, 24*time.Hour)
	d.AddSampleAt(0.1, 1, t0)
	if want := t0.Round(24 * time.Hour); !d.Reference().Equal(want) {
		t.Fatalf("reference = %v, want %v", d.Reference(), want)
	}
	d.AddSampleAt(1.0, 1, t0.Add(24*time.Hour))
	if got := d.Weight(36) / d.Weight(8); math.Abs(got-2) > 1e-12 {
		t.Fatalf("a sample one half-life newer weighs %v times as much, want 2", got)
	}
	// Far in the future the reference moves and old weights shrink.
	far := t0.Add(150 * 24 * time.Hour)
	d.AddSampleAt(1.0, 1, far)
	if !d.Reference().Equal(far.Round(24 * time.Hour)) {
		t.Fatalf("reference did not move: %v", d.Reference())
	}
	if d.Weight(8) != 0 {
		t.Fatalf("a 150-half-lives-old sample still weighs %v", d.Weight(8))
	}
	// Merging brings both to the later reference.
	a := NewDecayingHistogram(opts, 24*time.Hour)
	b := NewDecayingHistogram(opts, 24*time.Hour)
	a.AddSampleAt(0.1, 1, t0)
	b.AddSampleAt(0.1, 1, t0.Add(48*time.Hour))
	a.Merge(b)
	if !a.Reference().Equal(b.Reference()) || math.Abs(a.TotalWeight()-(b.TotalWeight()*1.25)) > 1e-9 {
		t.Fatalf("merge: reference %v total %v, want %v and %v", a.Reference(), a.TotalWeight(), b.Reference(), b.TotalWeight()*1.25)
	}
}

// TestHistogramTotalAsUpstream pins upstream's total weight, which the VPA
// oracle (hack/vpafidelity) found kscale computing differently: weights
// that decay below epsilon leave the buckets but stay in the total, and a
// subtraction takes its whole weight off the total.
func TestHistogramTotalAsUpstream(t *testing.T) {
	opts := DefaultConfig().CPUOptions()
	h := NewHistogram(opts)
	h.AddSample(0.1, 1)
	h.AddSample(1.0, 1)
	h.scale(bucketEpsilon / 2)
	if !h.IsEmpty() || h.TotalWeight() != bucketEpsilon {
		t.Fatalf("after decaying below epsilon: empty %v total %v, want true and %v", h.IsEmpty(), h.TotalWeight(), bucketEpsilon)
	}
	h = NewHistogram(opts)
	h.AddSample(0.1, 1)
	h.AddSample(1.0, 3)
	h.SubtractSample(0.1, 2)
	if h.TotalWeight() != 2 || h.MinBucket() != 36 {
		t.Fatalf("after subtracting more than the bucket holds: total %v min bucket %d, want 2 and 36", h.TotalWeight(), h.MinBucket())
	}
}

// TestMergeLeavesOutSubEpsilonEnds pins upstream's merge, which the VPA
// oracle (hack/vpafidelity) found kscale doing differently: buckets at the
// ends of the merged histogram that its rescaling takes below epsilon are
// not added, while its whole total is.
func TestMergeLeavesOutSubEpsilonEnds(t *testing.T) {
	opts := DefaultConfig().CPUOptions()
	h := NewHistogram(opts)
	h.AddSample(0.5, 1)
	other := NewHistogram(opts)
	other.AddSample(0.5, 1)
	other.AddSample(1.0, 1)
	b := opts.FindBucket(0.5)
	h.mergeScaled(other, bucketEpsilon/2)
	if h.Weight(b) != 1 || h.MaxBucket() != b {
		t.Fatalf("after merging: weight %v max bucket %d, want 1 and %d", h.Weight(b), h.MaxBucket(), b)
	}
	if want := 1 + bucketEpsilon; math.Abs(h.TotalWeight()-want) > 1e-15 {
		t.Fatalf("total = %v, want %v", h.TotalWeight(), want)
	}
}
