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
	h         Histogram
	halfLife  time.Duration
	reference time.Time
}

// NewDecayingHistogram returns an empty histogram decaying with halfLife.
func NewDecayingHistogram(opts *HistogramOptions, halfLife time.Duration) *DecayingHistogram {
	return &DecayingHistogram{h: Histogram{opts: opts}, halfLife: halfLife}
}

// Reference returns the reference time of the weights.
func (d *DecayingHistogram) Reference() time.Time { return d.reference }

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
	if d.reference.IsZero() || t.Sub(d.reference) > maxDecayExponent*d.halfLife {
		d.shiftReference(t.Round(d.halfLife))
	}
	return math.Exp2(float64(t.Sub(d.reference)) / float64(d.halfLife))
}

// shiftReference moves the reference to ref, rescaling stored weights.
func (d *DecayingHistogram) shiftReference(ref time.Time) {
	if !d.reference.IsZero() && !d.h.IsEmpty() {
		d.h.scale(math.Exp2(float64(d.reference.Sub(ref)) / float64(d.halfLife)))
	}
	d.reference = ref
}

// Merge adds other's weights (same options and half-life) into d, first
// bringing both to the later reference time.
func (d *DecayingHistogram) Merge(other *DecayingHistogram) {
	if other.h.IsEmpty() {
		return
	}
	if d.h.IsEmpty() && d.reference.IsZero() {
		d.reference = other.reference
	}
	if other.reference.After(d.reference) {
		d.shiftReference(other.reference)
	}
	factor := math.Exp2(float64(other.reference.Sub(d.reference)) / float64(d.halfLife))
	d.h.mergeScaled(&other.h, factor)
}

// clone returns a deep copy.
func (d *DecayingHistogram) clone() *DecayingHistogram {
	return &DecayingHistogram{h: *d.h.clone(), halfLife: d.halfLife, reference: d.reference}
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
