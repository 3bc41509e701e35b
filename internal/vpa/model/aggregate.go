package model

import (
	"time"
)

// AggregateContainerState is the usage history of all containers sharing
// one aggregation key (or merged for one VPA container): a decaying CPU
// histogram of usage samples, a decaying memory histogram of per-window
// peaks, and sample bookkeeping for confidence.
type AggregateContainerState struct {
	// CPU holds CPU usage in cores.
	CPU *DecayingHistogram
	// Memory holds memory peaks in bytes, one per container per window.
	Memory *DecayingHistogram
	// FirstSampleStart is the time of the earliest CPU sample.
	FirstSampleStart time.Time
	// LastSampleStart is the time of the latest CPU sample.
	LastSampleStart time.Time
	// TotalSamplesCount counts CPU samples.
	TotalSamplesCount int
	// CreationTime is when the aggregate was created.
	CreationTime time.Time
}

// NewAggregateContainerState returns an empty aggregate created at now.
func NewAggregateContainerState(cfg *Config, now time.Time) *AggregateContainerState {
	return &AggregateContainerState{
		CPU:          NewDecayingHistogram(cfg.cpuOpts, cfg.CPUHalfLife),
		Memory:       NewDecayingHistogram(cfg.memOpts, cfg.MemoryHalfLife),
		CreationTime: now,
	}
}

// IsEmpty reports whether no CPU sample was ever recorded.
func (a *AggregateContainerState) IsEmpty() bool { return a.TotalSamplesCount == 0 }

// HasSamples reports whether either histogram holds weight.
func (a *AggregateContainerState) HasSamples() bool {
	return a.TotalSamplesCount > 0 || !a.Memory.IsEmpty() || !a.CPU.IsEmpty()
}

// addCPU records one CPU sample in cores at t.
func (a *AggregateContainerState) addCPU(t time.Time, cores float64) {
	a.CPU.AddSampleAt(cores, CPUSampleWeight, t)
	if a.FirstSampleStart.IsZero() || t.Before(a.FirstSampleStart) {
		a.FirstSampleStart = t
	}
	if t.After(a.LastSampleStart) {
		a.LastSampleStart = t
	}
	a.TotalSamplesCount++
}

// Merge adds other's history into a: histogram weights add, the earliest
// first sample and the latest last sample win, sample counts sum.
func (a *AggregateContainerState) Merge(other *AggregateContainerState) {
	a.CPU.Merge(other.CPU)
	a.Memory.Merge(other.Memory)
	if !other.FirstSampleStart.IsZero() && (a.FirstSampleStart.IsZero() || other.FirstSampleStart.Before(a.FirstSampleStart)) {
		a.FirstSampleStart = other.FirstSampleStart
	}
	if other.LastSampleStart.After(a.LastSampleStart) {
		a.LastSampleStart = other.LastSampleStart
	}
	a.TotalSamplesCount += other.TotalSamplesCount
	if a.CreationTime.IsZero() || (!other.CreationTime.IsZero() && other.CreationTime.Before(a.CreationTime)) {
		a.CreationTime = other.CreationTime
	}
}

// Clone returns a deep copy.
func (a *AggregateContainerState) Clone() *AggregateContainerState {
	c := *a
	c.CPU = a.CPU.clone()
	c.Memory = a.Memory.clone()
	return &c
}
