package vpafidelity

import "time"

// SubEpsilonPercentile names the consequence of the deliberate difference
// sub-epsilon-weights beyond a bucket: upstream revives a weight below
// epsilon, and that weight tips a percentile, the heaviest bucket of a
// checkpoint or a total (docs/vpa.md).
const SubEpsilonPercentile = "sub-epsilon-weights-revived"

// Sample weights before decay (upstream's minSampleWeight for CPU without a
// request, and one memory peak) and the half-lives within which such a
// weight stays at or above epsilon: 0.1*2^-9.5 and 1*2^-13 are above 1e-4,
// with half a half-life to spare for the reference time's rounding.
const (
	cpuKeptHalfLives    = 9
	memoryKeptHalfLives = 12.5
)

// withoutDecayedSamples returns s without the samples that may decay below
// epsilon on either side: CPU samples more than cpuKeptHalfLives CPU
// half-lives before the stream's last CPU sample, and memory samples and
// OOMs whose window may end more than memoryKeptHalfLives memory
// half-lives before the last one's window. Both sides then only ever hold
// weights above epsilon, so the deliberate difference sub-epsilon-weights
// cannot arise; nil when s has no such sample.
func withoutDecayedSamples(s *Stream) *Stream {
	var lastCPU, lastMemory time.Duration = -1, -1
	for _, e := range s.Events {
		switch e.Kind {
		case CPU:
			lastCPU = e.At
		case Memory, OOM:
			lastMemory = e.At
		}
	}
	cpuFrom := lastCPU - time.Duration(cpuKeptHalfLives*float64(s.Flags.CPUHalfLife))
	memoryFrom := lastMemory + s.Flags.MemoryInterval - time.Duration(memoryKeptHalfLives*float64(s.Flags.MemoryHalfLife))
	c := s.clone()
	c.Events = c.Events[:0]
	for _, e := range s.Events {
		switch {
		case e.Kind == CPU && e.At < cpuFrom:
		case (e.Kind == Memory || e.Kind == OOM) && e.At < memoryFrom:
		default:
			c.Events = append(c.Events, e)
		}
	}
	if len(c.Events) == len(s.Events) {
		return nil
	}
	return c
}
