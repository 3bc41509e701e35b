package model

import (
	"fmt"
	"math"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
)

// CheckpointVersion is the format version of stored checkpoints; it
// changes whenever the bucket scheme does.
const CheckpointVersion = "v3"

// maxCheckpointWeight is the stored weight of a histogram's heaviest bucket.
const maxCheckpointWeight = 10000.0

// CheckpointError is a checkpoint that cannot be loaded.
type CheckpointError struct {
	// Field names the offending part of the checkpoint.
	Field string
	// Message says what is wrong with it.
	Message string
}

// Error returns "field: message".
func (e *CheckpointError) Error() string { return fmt.Sprintf("%s: %s", e.Field, e.Message) }

// SaveToCheckpoint returns the histogram in stored form: bucket weights
// scaled so the heaviest is 10000, rounded, zeros dropped.
func (d *DecayingHistogram) SaveToCheckpoint() vpav1.HistogramCheckpoint {
	cp := vpav1.HistogramCheckpoint{BucketWeights: map[int]uint32{}, TotalWeight: d.h.total}
	if d.ref != 0 {
		cp.ReferenceTimestamp = metav1.NewTime(fromNanos(d.ref))
	}
	maxW := 0.0
	for _, w := range d.h.w {
		maxW = math.Max(maxW, w)
	}
	if maxW == 0 {
		return cp
	}
	ratio := maxCheckpointWeight / maxW
	for i, w := range d.h.w {
		if v := uint32(math.Round(w * ratio)); v > 0 {
			cp.BucketWeights[d.h.lo+i] = v
		}
	}
	return cp
}

// LoadFromCheckpoint replaces the histogram's content with cp. Each bucket
// gets its stored share of cp.TotalWeight.
func (d *DecayingHistogram) LoadFromCheckpoint(cp *vpav1.HistogramCheckpoint, field string) error {
	sum := 0.0
	for b, v := range cp.BucketWeights {
		if b < 0 || b >= d.h.opts.NumBuckets() {
			return &CheckpointError{Field: field + ".bucketWeights", Message: fmt.Sprintf("bucket %d is outside [0, %d)", b, d.h.opts.NumBuckets())}
		}
		sum += float64(v)
	}
	if cp.TotalWeight < 0 || math.IsNaN(cp.TotalWeight) || math.IsInf(cp.TotalWeight, 0) {
		return &CheckpointError{Field: field + ".totalWeight", Message: fmt.Sprintf("%v is not a finite non-negative number", cp.TotalWeight)}
	}
	d.h = Histogram{opts: d.h.opts}
	d.ref = toNanos(cp.ReferenceTimestamp.Time)
	if sum == 0 || cp.TotalWeight == 0 {
		return nil
	}
	ratio := cp.TotalWeight / sum
	for b, v := range cp.BucketWeights {
		d.h.addToBucket(b, float64(v)*ratio)
	}
	// As upstream, the total is the stored one, not the sum of the buckets
	// (which differs in the last bits and can move a percentile).
	d.h.total = cp.TotalWeight
	return nil
}

// SaveToCheckpoint returns the aggregate in stored form, stamped at now.
func (a *AggregateContainerState) SaveToCheckpoint(now time.Time) vpav1.VerticalPodAutoscalerCheckpointStatus {
	return vpav1.VerticalPodAutoscalerCheckpointStatus{
		LastUpdateTime:    metav1.NewTime(now),
		Version:           CheckpointVersion,
		CPUHistogram:      a.CPU.SaveToCheckpoint(),
		MemoryHistogram:   a.Memory.SaveToCheckpoint(),
		FirstSampleStart:  metav1.NewTime(a.FirstSampleStart),
		LastSampleStart:   metav1.NewTime(a.LastSampleStart),
		TotalSamplesCount: a.TotalSamplesCount,
	}
}

// LoadAggregateFromCheckpoint rebuilds an aggregate from a stored
// checkpoint; it rejects other versions and out-of-range buckets.
func LoadAggregateFromCheckpoint(cfg *Config, st *vpav1.VerticalPodAutoscalerCheckpointStatus, now time.Time) (*AggregateContainerState, error) {
	if st.Version != CheckpointVersion {
		return nil, &CheckpointError{Field: "status.version", Message: fmt.Sprintf("%q is not the supported version %q", st.Version, CheckpointVersion)}
	}
	if st.TotalSamplesCount < 0 {
		return nil, &CheckpointError{Field: "status.totalSamplesCount", Message: "must not be negative"}
	}
	a := NewAggregateContainerState(cfg, now)
	if err := a.CPU.LoadFromCheckpoint(&st.CPUHistogram, "status.cpuHistogram"); err != nil {
		return nil, err
	}
	if err := a.Memory.LoadFromCheckpoint(&st.MemoryHistogram, "status.memoryHistogram"); err != nil {
		return nil, err
	}
	a.FirstSampleStart = st.FirstSampleStart.Time
	a.LastSampleStart = st.LastSampleStart.Time
	a.TotalSamplesCount = st.TotalSamplesCount
	return a, nil
}

// CheckpointStates returns, per container name, a copy of the VPA's merged
// history to store at now, with the peak of every live container's memory
// window that is still open at now subtracted (a peak of 0 too: the
// window's entry is then in bucket 0) so a restore does not count that
// window twice. A finished window's peak stays, as upstream's
// checkpoint writer keeps it.
func (c *Cluster) CheckpointStates(id VPAID, now time.Time) map[string]*AggregateContainerState {
	v, ok := c.vpas[id]
	if !ok {
		return nil
	}
	out := map[string]*AggregateContainerState{}
	for name, s := range c.ContainerStates(id) {
		out[name] = s.Clone()
	}
	for _, e := range v.aggs {
		s := out[e.key.Container]
		for _, cs := range e.containers {
			if now.UnixNano() < cs.windowEnd {
				s.Memory.SubtractSampleAt(cs.WindowPeak(), memoryPeakWeight, fromNanos(cs.windowEnd))
			}
		}
	}
	return out
}
