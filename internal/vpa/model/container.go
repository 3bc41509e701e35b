package model

import (
	"math"
	"time"
)

// ContainerState is the live state of one container of one pod. It feeds
// its samples into the aggregate it belongs to and keeps the memory peak of
// the current aggregation window.
type ContainerState struct {
	agg *AggregateContainerState
	cfg *Config
	pod *podState

	// Times are Unix nanoseconds (0 = none) to keep the state small.
	lastCPUSample    int64
	lastMemorySample int64
	windowEnd        int64
	memoryPeak       float64
	oomPeak          float64
}

// newContainerState returns a container feeding agg.
func newContainerState(cfg *Config, agg *AggregateContainerState, pod *podState) *ContainerState {
	return &ContainerState{agg: agg, cfg: cfg, pod: pod}
}

// Aggregate returns the aggregate this container feeds.
func (c *ContainerState) Aggregate() *AggregateContainerState { return c.agg }

// WindowEnd returns the end of the current memory window (zero before the
// first memory sample).
func (c *ContainerState) WindowEnd() time.Time { return fromNanos(c.windowEnd) }

// WindowPeak returns the larger of the usage and OOM peaks of the current window.
func (c *ContainerState) WindowPeak() float64 { return math.Max(c.memoryPeak, c.oomPeak) }

// AddCPU records a CPU sample in cores taken at t. It returns false (and
// records nothing) for a negative value or a sample not strictly after the
// previous CPU sample of this container.
func (c *ContainerState) AddCPU(t time.Time, cores float64) bool {
	tn := t.UnixNano()
	if cores < 0 || (c.lastCPUSample != 0 && tn <= c.lastCPUSample) {
		return false
	}
	c.agg.addCPU(t, cores)
	c.lastCPUSample = tn
	return true
}

// AddMemory records a working-set sample in bytes taken at t. It returns
// false for a negative value or a sample older than the previous memory
// sample or OOM of this container.
func (c *ContainerState) AddMemory(t time.Time, bytes float64) bool {
	if bytes < 0 || (c.lastMemorySample != 0 && t.UnixNano() < c.lastMemorySample) {
		return false
	}
	c.addPeak(t, bytes, false)
	return true
}

// RecordOOM records an OOM kill at t of a container whose memory request
// (or reported usage) was memoryBytes. The memory fed into the window is
// the larger of memoryBytes and the window's usage peak, bumped by
// OOMBumpUpRatio or OOMMinBumpUpBytes, whichever is more, in whole bytes.
// As upstream, an OOM may be older than the last memory sample; it returns
// false only when the OOM lies more than one interval before the current
// window's end.
func (c *ContainerState) RecordOOM(t time.Time, memoryBytes float64) bool {
	if c.windowEnd != 0 && t.UnixNano() < c.windowEnd-int64(c.cfg.MemoryAggregationInterval) {
		return false
	}
	used := math.Max(memoryBytes, c.memoryPeak)
	needed := math.Max(used+math.Trunc(c.cfg.OOMMinBumpUpBytes), math.Trunc(used*c.cfg.OOMBumpUpRatio))
	c.addPeak(t, needed, true)
	return true
}

// addPeak applies upstream's per-window peak rule: one histogram entry per
// window, time-stamped at the window's end. The first sample of a window
// is the entry (even 0); a later sample replaces it only when it is larger
// than a non-zero peak, and only such a sample updates the usage (or OOM)
// peak that a later OOM bumps.
func (c *ContainerState) addPeak(t time.Time, bytes float64, oom bool) {
	tn := t.UnixNano()
	c.lastMemorySample = tn
	if c.windowEnd == 0 {
		c.windowEnd = tn
	}
	if tn < c.windowEnd {
		old := c.WindowPeak()
		if old == 0 || bytes <= old {
			return
		}
		c.agg.Memory.SubtractSampleAt(old, memoryPeakWeight, fromNanos(c.windowEnd))
	} else {
		interval := int64(c.cfg.MemoryAggregationInterval)
		c.windowEnd += (tn-c.windowEnd)/interval*interval + interval
		c.memoryPeak, c.oomPeak = 0, 0
	}
	c.agg.Memory.AddSampleAt(bytes, memoryPeakWeight, fromNanos(c.windowEnd))
	if oom {
		c.oomPeak = bytes
	} else {
		c.memoryPeak = bytes
	}
}
