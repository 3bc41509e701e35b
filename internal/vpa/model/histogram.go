package model

import (
	"fmt"
	"math"
)

// HistogramOptions describes an exponential bucket scheme: bucket n has
// width First*Ratio^n, so bucket n starts at First*(Ratio^n-1)/(Ratio-1).
// Bucket 0 covers [0, First).
type HistogramOptions struct {
	first   float64
	ratio   float64
	logR    float64
	epsilon float64
	starts  []float64
}

// NewExponentialOptions returns the scheme with the given first bucket
// width, growth ratio (> 1) and maximum value; buckets below epsilon weight
// count as empty.
func NewExponentialOptions(maxValue, first, ratio, epsilon float64) (*HistogramOptions, error) {
	if first <= 0 || ratio <= 1 || maxValue <= first || epsilon <= 0 {
		return nil, fmt.Errorf("invalid histogram options: max=%v first=%v ratio=%v epsilon=%v", maxValue, first, ratio, epsilon)
	}
	logR := math.Log(ratio)
	n := int(math.Ceil(math.Log(maxValue*(ratio-1)/first+1)/logR)) + 1
	o := &HistogramOptions{first: first, ratio: ratio, logR: logR, epsilon: epsilon, starts: make([]float64, n+1)}
	for i := 0; i <= n; i++ {
		o.starts[i] = first * (math.Pow(ratio, float64(i)) - 1) / (ratio - 1)
	}
	return o, nil
}

// NumBuckets returns the number of buckets.
func (o *HistogramOptions) NumBuckets() int { return len(o.starts) - 1 }

// BucketStart returns the lower edge of bucket b.
func (o *HistogramOptions) BucketStart(b int) float64 { return o.starts[b] }

// Epsilon returns the weight below which a bucket counts as empty.
func (o *HistogramOptions) Epsilon() float64 { return o.epsilon }

// FindBucket returns the bucket holding value, clamped to the last bucket.
func (o *HistogramOptions) FindBucket(value float64) int {
	if value < o.first {
		return 0
	}
	b := int(math.Floor(math.Log(value*(o.ratio-1)/o.first+1) / o.logR))
	return min(max(b, 0), o.NumBuckets()-1)
}

// Histogram is a weighted histogram over a HistogramOptions scheme. It
// stores only the window of buckets between the lowest and the highest
// non-empty one, so a steady series costs one or two buckets.
type Histogram struct {
	opts  *HistogramOptions
	lo    int
	w     []float64
	total float64
}

// NewHistogram returns an empty histogram.
func NewHistogram(opts *HistogramOptions) *Histogram { return &Histogram{opts: opts} }

// Options returns the bucket scheme.
func (h *Histogram) Options() *HistogramOptions { return h.opts }

// IsEmpty reports whether no bucket holds at least epsilon weight.
func (h *Histogram) IsEmpty() bool { return len(h.w) == 0 }

// TotalWeight returns the sum of all bucket weights.
func (h *Histogram) TotalWeight() float64 { return h.total }

// Weight returns the weight of bucket b.
func (h *Histogram) Weight(b int) float64 {
	if b < h.lo || b >= h.lo+len(h.w) {
		return 0
	}
	return h.w[b-h.lo]
}

// MinBucket and MaxBucket return the lowest and highest non-empty bucket;
// both are -1 for an empty histogram.
func (h *Histogram) MinBucket() int {
	if len(h.w) == 0 {
		return -1
	}
	return h.lo
}

// MaxBucket returns the highest non-empty bucket, or -1.
func (h *Histogram) MaxBucket() int {
	if len(h.w) == 0 {
		return -1
	}
	return h.lo + len(h.w) - 1
}

// AddSample adds weight to the bucket of value. Non-positive weights are ignored.
func (h *Histogram) AddSample(value, weight float64) {
	if !(weight > 0) {
		return
	}
	h.addToBucket(h.opts.FindBucket(value), weight)
}

// addToBucket adds weight to bucket b, growing the window as needed.
func (h *Histogram) addToBucket(b int, weight float64) {
	h.grow(b)
	h.w[b-h.lo] += weight
	h.total += weight
	if h.w[b-h.lo] < h.opts.epsilon {
		h.trim()
	}
}

// grow extends the window to include bucket b.
func (h *Histogram) grow(b int) {
	switch {
	case len(h.w) == 0:
		h.lo = b
		h.w = append(h.w[:0], 0)
	case b < h.lo:
		nw := make([]float64, h.lo+len(h.w)-b)
		copy(nw[h.lo-b:], h.w)
		h.lo, h.w = b, nw
	case b >= h.lo+len(h.w):
		for b >= h.lo+len(h.w) {
			h.w = append(h.w, 0)
		}
	}
}

// SubtractSample removes weight from the bucket of value and from the
// total, as upstream: a bucket or total left below epsilon becomes 0 (the
// total loses the whole weight even when the bucket held less).
func (h *Histogram) SubtractSample(value, weight float64) {
	if !(weight > 0) {
		return
	}
	eps := h.opts.epsilon
	h.total = subtractToEpsilon(h.total, weight, eps)
	b := h.opts.FindBucket(value)
	if b < h.lo || b >= h.lo+len(h.w) {
		return
	}
	i := b - h.lo
	h.w[i] = subtractToEpsilon(h.w[i], weight, eps)
	if h.w[i] == 0 {
		h.trim()
	}
}

// subtractToEpsilon returns v-sub, or 0 when that is below epsilon.
func subtractToEpsilon(v, sub, epsilon float64) float64 {
	if v -= sub; v < epsilon {
		return 0
	}
	return v
}

// trim drops empty buckets (below epsilon) at both ends of the window.
// As upstream, the total keeps their weight.
func (h *Histogram) trim() {
	eps := h.opts.epsilon
	start, end := 0, len(h.w)
	for start < end && h.w[start] < eps {
		start++
	}
	for end > start && h.w[end-1] < eps {
		end--
	}
	if start == 0 && end == len(h.w) {
		return
	}
	if start == end {
		h.w, h.lo = h.w[:0], 0
		return
	}
	n := copy(h.w, h.w[start:end])
	h.w = h.w[:n]
	h.lo += start
}

// Percentile returns the upper edge of the bucket where the running weight
// first reaches p of the total (the start of the last bucket if that is the
// one), or 0 for an empty histogram. There is no interpolation.
func (h *Histogram) Percentile(p float64) float64 {
	if len(h.w) == 0 {
		return 0
	}
	threshold := p * h.total
	sum := 0.0
	b := h.lo + len(h.w) - 1
	for i, w := range h.w {
		sum += w
		if sum >= threshold {
			b = h.lo + i
			break
		}
	}
	if b < h.opts.NumBuckets()-1 {
		return h.opts.BucketStart(b + 1)
	}
	return h.opts.BucketStart(b)
}

// Merge adds every bucket of other (same options) into h.
func (h *Histogram) Merge(other *Histogram) { h.mergeScaled(other, 1) }

// mergeScaled adds other's weights multiplied by factor. As upstream,
// whose merge first rescales other to the common reference, buckets at
// either end of other that the factor takes below epsilon are left out
// while other's whole total is added.
func (h *Histogram) mergeScaled(other *Histogram, factor float64) {
	h.total += other.total * factor
	lo, hi := 0, len(other.w)
	for lo < hi && other.w[lo]*factor < h.opts.epsilon {
		lo++
	}
	for hi > lo && other.w[hi-1]*factor < h.opts.epsilon {
		hi--
	}
	if lo == hi {
		return
	}
	h.grow(other.lo + lo)
	h.grow(other.lo + hi - 1)
	for i := lo; i < hi; i++ {
		h.w[other.lo+i-h.lo] += other.w[i] * factor
	}
	h.trim()
}

// scale multiplies every weight by factor.
func (h *Histogram) scale(factor float64) {
	for i := range h.w {
		h.w[i] *= factor
	}
	h.total *= factor
	h.trim()
}

// clone returns a deep copy.
func (h *Histogram) clone() *Histogram {
	c := &Histogram{opts: h.opts, lo: h.lo, total: h.total}
	if len(h.w) > 0 {
		c.w = append(make([]float64, 0, len(h.w)), h.w...)
	}
	return c
}
