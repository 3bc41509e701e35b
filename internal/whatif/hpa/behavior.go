package hpa

import (
	"math"
	"time"
)

// Policy types and select policies of an HPA behavior.
const (
	PodsPolicy    = "Pods"
	PercentPolicy = "Percent"
	SelectMax     = "Max"
	SelectMin     = "Min"
	SelectOff     = "Disabled"
)

// Policy is one scaling policy: at most Value pods (or percent) per Period.
type Policy struct {
	// Type is Pods or Percent.
	Type string
	// Value is the number of pods or the percentage.
	Value int32
	// Period is the policy's period.
	Period time.Duration
}

// Rules are one direction of a behavior.
type Rules struct {
	// Window is the stabilization window.
	Window time.Duration
	// Select is Max, Min or Disabled.
	Select string
	// Policies limit the rate of change.
	Policies []Policy
}

// Behavior is the HPA's behavior; nil means the legacy rules.
type Behavior struct {
	// Up and Down are the scale-up and scale-down rules.
	Up, Down Rules
}

// DefaultBehavior is what the API server fills into a behavior without
// rules: scale-up no window, max of 4 pods or 100% per 15s; scale-down a
// window of downWindow (the controller flag, 5m), 100% per 15s.
func DefaultBehavior(downWindow time.Duration) Behavior {
	return Behavior{
		Up:   Rules{Select: SelectMax, Policies: []Policy{{PodsPolicy, 4, 15 * time.Second}, {PercentPolicy, 100, 15 * time.Second}}},
		Down: Rules{Window: downWindow, Select: SelectMax, Policies: []Policy{{PercentPolicy, 100, 15 * time.Second}}},
	}
}

type timed struct {
	at time.Time
	n  int32
}

// State is one HPA's memory between reconciles: recent recommendations
// and scale events.
type State struct {
	recs     []timed
	up, down []timed
	init     bool
}

// Normalize turns a proposal into the replica count to set at now, for an
// HPA with the given min, max and behavior (nil: legacy rules with the
// downscale window legacyWindow), and records the change.
func (s *State) Normalize(now time.Time, current, proposal, minR, maxR int32, b *Behavior, legacyWindow time.Duration) int32 {
	if !s.init {
		// upstream's maybeInitScaleDownStabilizationWindow: the first
		// reconcile records the current count as a recommendation
		s.recs = append(s.recs, timed{now, current})
		s.init = true
	}
	var out int32
	if b == nil {
		out = s.legacy(now, current, proposal, minR, maxR, legacyWindow)
	} else {
		out = s.withBehavior(now, current, proposal, minR, maxR, b)
	}
	s.record(now, current, out, b)
	return out
}

func (s *State) legacy(now time.Time, current, proposal, minR, maxR int32, window time.Duration) int32 {
	s.recs = keepSince(s.recs, now.Add(-window))
	s.recs = append(s.recs, timed{now, proposal})
	stab := proposal
	for _, r := range s.recs {
		stab = max(stab, r.n)
	}
	upper := min(maxR, max(2*current, 4))
	return min(max(stab, minR), upper)
}

func (s *State) withBehavior(now time.Time, current, proposal, minR, maxR int32, b *Behavior) int32 {
	longest := max(b.Up.Window, b.Down.Window)
	s.recs = keepSince(s.recs, now.Add(-longest))
	upRec, downRec := proposal, proposal
	for _, r := range s.recs {
		if r.at.After(now.Add(-b.Up.Window)) {
			upRec = min(upRec, r.n)
		}
		if r.at.After(now.Add(-b.Down.Window)) {
			downRec = max(downRec, r.n)
		}
	}
	s.recs = append(s.recs, timed{now, proposal})
	desired := current
	if desired < upRec {
		desired = upRec
	}
	if desired > downRec {
		desired = downRec
	}
	switch {
	case desired > current:
		limit := max(upLimit(now, current, s.up, s.down, b.Up), current)
		return max(min(desired, min(maxR, limit)), minR)
	case desired < current:
		limit := min(downLimit(now, current, s.up, s.down, b.Down), current)
		return min(max(desired, max(minR, limit)), maxR)
	}
	return min(max(desired, minR), maxR)
}

// keepSince drops entries before t (the slice is in time order).
func keepSince(xs []timed, t time.Time) []timed {
	i := 0
	for i < len(xs) && xs[i].at.Before(t) {
		i++
	}
	return xs[i:]
}

func changedWithin(now time.Time, events []timed, period time.Duration) int32 {
	var n int32
	for _, e := range events {
		if e.at.After(now.Add(-period)) {
			n += e.n
		}
	}
	return n
}

func upLimit(now time.Time, current int32, up, down []timed, r Rules) int32 {
	return rateLimit(now, current, up, down, r, 1)
}

func downLimit(now time.Time, current int32, up, down []timed, r Rules) int32 {
	return rateLimit(now, current, up, down, r, -1)
}

// rateLimit is the furthest the policies let the count move from current
// in the direction dir (1 up, -1 down): per policy from the count at the
// period's start, then the largest change (Max) or the smallest (Min).
func rateLimit(now time.Time, current int32, up, down []timed, r Rules, dir int32) int32 {
	if r.Select == SelectOff {
		return current
	}
	var result int32
	for i, p := range r.Policies {
		start := current - changedWithin(now, up, p.Period) + changedWithin(now, down, p.Period)
		var v int32
		switch {
		case p.Type == PodsPolicy:
			v = start + dir*p.Value
		case dir > 0:
			v = int32(math.Ceil(float64(start) * (1 + float64(p.Value)/100)))
		default:
			v = int32(float64(start) * (1 - float64(p.Value)/100))
		}
		// larger change: up the maximum, down the minimum; Min the reverse
		further := (v-result)*dir > 0
		if i == 0 || further == (r.Select != SelectMin) {
			result = v
		}
	}
	if len(r.Policies) == 0 {
		return current
	}
	return result
}

// record stores a scale event, dropping events older than the longest
// policy period of their direction.
func (s *State) record(now time.Time, from, to int32, b *Behavior) {
	if b == nil || from == to {
		return
	}
	if to > from {
		s.up = append(keepSince(s.up, now.Add(-longestPeriod(b.Up))), timed{now, to - from})
	} else {
		s.down = append(keepSince(s.down, now.Add(-longestPeriod(b.Down))), timed{now, from - to})
	}
}

func longestPeriod(r Rules) time.Duration {
	var p time.Duration
	for _, x := range r.Policies {
		p = max(p, x.Period)
	}
	return p
}
