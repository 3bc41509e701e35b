package vpafidelity

import (
	"slices"
)

// Pending is a defect of issue 25 that is being fixed in kscale and that
// the oracle sees; Neutralize returns the stream with the defect's trigger
// removed on both sides (nil when the stream does not trigger it).
type Pending struct {
	Defect     int
	What       string
	Neutralize func(*Stream) *Stream
}

// pendingDefects lists the open findings: issue 25's defects 4, 5 and 9,
// which the oracle saw, are fixed (docs/vpa.md). After defect 9's fix, 2
// of the 1,500 fixed streams (seeds 615 and 1267) still write a different
// memory-peak histogram into the checkpoint when several pods' windows
// meet the checkpoint time; removing every open window before the
// checkpoint (a restart of each pod) makes the sides agree, so it is
// listed here, as open, until the rule is found and fixed.
var pendingDefects = []Pending{
	{9, "checkpoint: the memory peaks left out for several pods' open windows differ (after defect 9's fix; seeds 615, 1267)", neutralizeOpenWindows},
}

// neutralizeOpenWindows restarts every pod just before the checkpoint, so
// no live container has a memory window, open or finished.
func neutralizeOpenWindows(s *Stream) *Stream {
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
