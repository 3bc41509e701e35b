package vpafidelity

import (
	"slices"
	"time"
)

// Pending is a defect of issue 25 that is being fixed in kscale and that
// the oracle sees; Neutralize returns the stream with the defect's trigger
// removed on both sides (nil when the stream does not trigger it).
// PENDING: the lead empties pendingDefects once the fixes of issue 25
// defects 4-9 are merged; every disagreement then counts as new.
type Pending struct {
	Defect     int
	What       string
	Neutralize func(*Stream) *Stream
}

var pendingDefects = []Pending{
	{4, "explicit zero flags are replaced by defaults", neutralizeZeroFlags},
	{5, "confidence is computed against 24h instead of --confidence-interval-*", neutralizeConfidence},
	{9, "checkpoints drop a finished window's memory peak", neutralizeFinishedWindows},
}

// neutralizeZeroFlags gives the zero flags kscale replaces their defaults.
func neutralizeZeroFlags(s *Stream) *Stream {
	f, d := s.Flags, UpstreamDefaults()
	if f.Margin == 0 {
		f.Margin = d.Margin
	}
	if f.PodMinCPUMillicores == 0 {
		f.PodMinCPUMillicores = d.PodMinCPUMillicores
	}
	if f.PodMinMemoryMB == 0 {
		f.PodMinMemoryMB = d.PodMinMemoryMB
	}
	if f.OOMMinBumpUpBytes == 0 {
		f.OOMMinBumpUpBytes = d.OOMMinBumpUpBytes
	}
	if f == s.Flags {
		return nil
	}
	c := s.clone()
	c.Flags = f
	return c
}

// neutralizeConfidence sets both confidence intervals to 24h.
func neutralizeConfidence(s *Stream) *Stream {
	if s.Flags.ConfidenceCPU == 24*time.Hour && s.Flags.ConfidenceMemory == 24*time.Hour {
		return nil
	}
	c := s.clone()
	c.Flags.ConfidenceCPU, c.Flags.ConfidenceMemory = 24*time.Hour, 24*time.Hour
	return c
}

// neutralizeFinishedWindows replaces every pod just before the checkpoint,
// so no live container has a memory window, finished or open.
func neutralizeFinishedWindows(s *Stream) *Stream {
	c := s.clone()
	for slot := range s.Variants {
		c.Events = append(c.Events, Event{At: s.End, Kind: Restart, Pod: slot})
	}
	return c
}

// Classify returns the pending defects that explain all of ds (the fewest
// whose triggers, removed together, make the sides agree), or nil when
// the disagreement is new.
func Classify(s *Stream, ds []Diff) []int {
	if len(ds) == 0 {
		return nil
	}
	apply := func(set []int) *Stream {
		cur := s
		for _, p := range pendingDefects {
			if slices.Contains(set, p.Defect) {
				if n := p.Neutralize(cur); n != nil {
					cur = n
				}
			}
		}
		return cur
	}
	var all []int
	for _, p := range pendingDefects {
		if p.Neutralize(s) != nil {
			all = append(all, p.Defect)
		}
	}
	if len(all) == 0 || len(Compare(apply(all))) > 0 {
		return nil
	}
	for _, d := range slices.Clone(all) {
		without := slices.DeleteFunc(slices.Clone(all), func(x int) bool { return x == d })
		if len(Compare(apply(without))) == 0 {
			all = without
		}
	}
	return all
}

// Residual returns the disagreements left once every pending defect's
// trigger is removed: what a stream shows beyond the known defects.
func Residual(s *Stream) (*Stream, []Diff) {
	cur := s
	for _, p := range pendingDefects {
		if n := p.Neutralize(cur); n != nil {
			cur = n
		}
	}
	return cur, Compare(cur)
}
