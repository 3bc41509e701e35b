package vpafidelity

import (
	"slices"
)

// maxShrinkRuns bounds the comparisons one shrink may run.
const maxShrinkRuns = 4000

// Shrink returns a smaller stream on which keep still holds: fewer events,
// containers and pods, default flags and an earlier end, as far as keep
// allows. keep must hold for s.
func Shrink(s *Stream, keep func(*Stream) bool) *Stream {
	runs := 0
	try := func(c *Stream) bool {
		if runs >= maxShrinkRuns || c == nil {
			return false
		}
		runs++
		return keep(c)
	}
	for progress := true; progress && runs < maxShrinkRuns; {
		progress = false
		for _, step := range []func(*Stream, func(*Stream) bool) (*Stream, bool){
			shrinkEvents, shrinkContainers, shrinkPods, shrinkFlags, shrinkEnd,
		} {
			if n, ok := step(s, try); ok {
				s, progress = n, true
			}
		}
	}
	return s
}

// shrinkEvents removes chunks of events, halving the chunk size down to 1.
func shrinkEvents(s *Stream, try func(*Stream) bool) (*Stream, bool) {
	changed := false
	for size := max(len(s.Events)/2, 1); size >= 1; size /= 2 {
		for i := 0; i+size <= len(s.Events); {
			c := s.clone()
			c.Events = slices.Delete(c.Events, i, i+size)
			if try(c) {
				s, changed = c, true
				continue
			}
			i += size
		}
		if size == 1 {
			break
		}
	}
	return s, changed
}

// shrinkContainers drops one container (and its events) at a time.
func shrinkContainers(s *Stream, try func(*Stream) bool) (*Stream, bool) {
	changed := false
	for c := s.Containers - 1; c >= 0 && s.Containers > 1; c-- {
		n := s.clone()
		n.Containers--
		n.Events = n.Events[:0]
		for _, e := range s.Events {
			if e.Kind != Restart && e.Container == c {
				continue
			}
			if e.Container > c {
				e.Container--
			}
			n.Events = append(n.Events, e)
		}
		if try(n) {
			s, changed = n, true
		}
	}
	return s, changed
}

// shrinkPods drops one pod slot (and its events) at a time, or makes a
// slot's label variant 0.
func shrinkPods(s *Stream, try func(*Stream) bool) (*Stream, bool) {
	changed := false
	for p := len(s.Variants) - 1; p >= 0; p-- {
		if s.Variants[p] != 0 {
			n := s.clone()
			n.Variants[p] = 0
			if try(n) {
				s, changed = n, true
			}
		}
		if len(s.Variants) == 1 {
			continue
		}
		n := s.clone()
		n.Variants = slices.Delete(n.Variants, p, p+1)
		n.Events = n.Events[:0]
		for _, e := range s.Events {
			if e.Pod == p {
				continue
			}
			if e.Pod > p {
				e.Pod--
			}
			n.Events = append(n.Events, e)
		}
		if try(n) {
			s, changed = n, true
		}
	}
	return s, changed
}

// shrinkFlags sets one flag at a time to upstream's default.
func shrinkFlags(s *Stream, try func(*Stream) bool) (*Stream, bool) {
	d := UpstreamDefaults()
	setters := []func(f *Flags){
		func(f *Flags) { f.CPUHalfLife = d.CPUHalfLife }, func(f *Flags) { f.MemoryHalfLife = d.MemoryHalfLife },
		func(f *Flags) { f.MemoryInterval = d.MemoryInterval }, func(f *Flags) { f.MemoryIntervalCount = d.MemoryIntervalCount },
		func(f *Flags) { f.OOMBumpUpRatio = d.OOMBumpUpRatio }, func(f *Flags) { f.OOMMinBumpUpBytes = d.OOMMinBumpUpBytes },
		func(f *Flags) { f.TargetCPU, f.LowerCPU, f.UpperCPU = d.TargetCPU, d.LowerCPU, d.UpperCPU },
		func(f *Flags) {
			f.TargetMemory, f.LowerMemory, f.UpperMemory = d.TargetMemory, d.LowerMemory, d.UpperMemory
		},
		func(f *Flags) { f.Margin = d.Margin }, func(f *Flags) { f.ConfidenceCPU, f.ConfidenceMemory = d.ConfidenceCPU, d.ConfidenceMemory },
		func(f *Flags) { f.PodMinCPUMillicores, f.PodMinMemoryMB = d.PodMinCPUMillicores, d.PodMinMemoryMB },
		func(f *Flags) { f.RoundCPUMillicores, f.RoundMemoryBytes = d.RoundCPUMillicores, d.RoundMemoryBytes },
		func(f *Flags) { f.MaxCPUMillicores, f.MaxMemoryBytes = 0, 0 },
	}
	changed := false
	for _, set := range setters {
		n := s.clone()
		set(&n.Flags)
		if n.Flags != s.Flags && try(n) {
			s, changed = n, true
		}
	}
	return s, changed
}

// shrinkEnd moves the end towards the last event.
func shrinkEnd(s *Stream, try func(*Stream) bool) (*Stream, bool) {
	last := s.End * 0
	for _, e := range s.Events {
		last = max(last, e.At)
	}
	changed := false
	for s.End > last {
		n := s.clone()
		n.End = last + (s.End-last)/2
		if n.End == s.End || !try(n) {
			break
		}
		s, changed = n, true
	}
	return s, changed
}
