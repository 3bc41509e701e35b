package model

import (
	"math"
	"time"
)

// maxDecayExponent bounds how far (in half-lives) a sample may lie after
// the reference time before the reference moves forward, keeping weights
// within float64 range.
const maxDecayExponent = 100

// DecayingHistogram is a Histogram whose sample weights grow by 2^(age of
// the reference / half-life), so newer samples weigh more; only relative
// weights matter. The reference time is always a multiple of the half-life.
type DecayingHistogram struct {
	h        Histogram
	halfLife time.Duration
	ref      int64 // reference time in Unix nanoseconds; 0 = unset
}

// NewDecayingHistogram returns an empty histogram decaying with halfLife.
func NewDecayingHistogram(opts *HistogramOptions, halfLife time.Duration) *DecayingHistogram {
	return &DecayingHistogram{h: Histogram{opts: opts}, halfLife: halfLife}
}

// toNanos converts t to Unix nanoseconds, the zero time to 0.
func toNanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// fromNanos converts Unix nanoseconds to a UTC time, 0 to the zero time.
func fromNanos(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// Reference returns the reference time of the weights.
func (d *DecayingHistogram) Reference() time.Time { return fromNanos(d.ref) }

// HalfLife returns the decay half-life.
func (d *DecayingHistogram) HalfLife() time.Duration { return d.halfLife }

// AddSampleAt adds value with weight decayed to time t.
func (d *DecayingHistogram) AddSampleAt(value, weight float64, t time.Time) {
	d.h.AddSample(value, weight*d.decayFactor(t))
}

// SubtractSampleAt removes value with weight decayed to time t.
func (d *DecayingHistogram) SubtractSampleAt(value, weight float64, t time.Time) {
	d.h.SubtractSample(value, weight*d.decayFactor(t))
}

// decayFactor returns 2^((t-reference)/halfLife), first moving the
// reference forward when t is too far ahead of it.
func (d *DecayingHistogram) decayFactor(t time.Time) float64 {
	tn := t.UnixNano()
	if d.ref == 0 || tn-d.ref > maxDecayExponent*int64(d.halfLife) {
		d.shiftReference(toNanos(t.Round(d.halfLife)))
	}
	return math.Exp2(float64(tn-d.ref) / float64(d.halfLife))
}

// shiftReference moves the reference to ref, rescaling stored weights.
func (d *DecayingHistogram) shiftReference(ref int64) {
	if d.ref != 0 && (!d.h.IsEmpty() || d.h.total != 0) {
		d.h.scale(math.Exp2(float64(d.ref-ref) / float64(d.halfLife)))
	}
	d.ref = ref
}

// Merge adds other's weights (same options and half-life) into d, first
// bringing both to the later reference time.
func (d *DecayingHistogram) Merge(other *DecayingHistogram) {
	if other.h.IsEmpty() && other.h.total == 0 {
		return
	}
	if d.h.IsEmpty() && d.ref == 0 {
		d.ref = other.ref
	}
	if other.ref > d.ref {
		d.shiftReference(other.ref)
	}
	factor := math.Exp2(float64(other.ref-d.ref) / float64(d.halfLife))
	d.h.mergeScaled(&other.h, factor)
}

// clone returns a deep copy.
func (d *DecayingHistogram) clone() *DecayingHistogram {
	return &DecayingHistogram{h: *d.h.clone(), halfLife: d.halfLife, ref: d.ref}
}

// Options returns the bucket scheme.
func (d *DecayingHistogram) Options() *HistogramOptions { return d.h.opts }

// IsEmpty reports whether no bucket holds at least epsilon weight.
func (d *DecayingHistogram) IsEmpty() bool { return d.h.IsEmpty() }

// TotalWeight returns the sum of all (decayed) bucket weights.
func (d *DecayingHistogram) TotalWeight() float64 { return d.h.total }

// Weight returns the (decayed) weight of bucket b.
func (d *DecayingHistogram) Weight(b int) float64 { return d.h.Weight(b) }

// MinBucket returns the lowest non-empty bucket, or -1.
func (d *DecayingHistogram) MinBucket() int { return d.h.MinBucket() }

// MaxBucket returns the highest non-empty bucket, or -1.
func (d *DecayingHistogram) MaxBucket() int { return d.h.MaxBucket() }

// Percentile returns the percentile of the decayed weights (see Histogram.Percentile).
func (d *DecayingHistogram) Percentile(p float64) float64 { return d.h.Percentile(p) }
