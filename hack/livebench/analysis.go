package main

import (
	"math"
	"slices"
	"time"
)

// Summary is a distribution in seconds.
type Summary struct {
	Count  int     `json:"count"`
	Min    float64 `json:"min"`
	Median float64 `json:"median"`
	P99    float64 `json:"p99"`
	Max    float64 `json:"max"`
	Mean   float64 `json:"mean"`
}

// summarize returns the nearest-rank quantiles of values.
func summarize(values []float64) Summary {
	if len(values) == 0 {
		return Summary{}
	}
	v := slices.Clone(values)
	slices.Sort(v)
	rank := func(q float64) float64 { return v[max(0, int(math.Ceil(q*float64(len(v))))-1)] }
	var sum float64
	for _, x := range v {
		sum += x
	}
	return Summary{Count: len(v), Min: v[0], Median: rank(0.5), P99: rank(0.99), Max: v[len(v)-1], Mean: sum / float64(len(v))}
}

// fillMarks gives each pod the watch never showed unschedulable the time
// kube-scheduler's mark reached the API server, if the audit log has one
// (the watch misses a mark when it restarts with a relist, which a busy
// API server does at 5,000 nodes), and returns how many it filled. The
// audit time is the mark's arrival, not its delivery, so a filled pod's
// unschedulable -> increase is, if anything, a little longer.
func fillMarks(pods []PodTimes, marks map[string]time.Time) int {
	n := 0
	for i := range pods {
		if at, ok := marks[pods[i].Name]; ok && pods[i].Unschedulable.IsZero() {
			pods[i].Unschedulable = at
			n++
		}
	}
	return n
}

// attribute sets each pod's Increase: every burst pod needs one new node.
// The autoscalers act on the pods kube-scheduler marked unschedulable, so
// first the marked pods, in the order of their marks, take the increases'
// nodes in time order, each from an increase at or after its mark. Then the
// pods left take what is left, from an increase at or after their creation,
// marked pods first: those never marked (kube-scheduler had not tried them
// before a new node took them, which happens when the increases come
// faster than it tries a burst) and those marked only after the increase
// that asked for their node (kscale asks for a marked pod's unprocessed
// twins at once, see --scale-up-unprocessed-twins). An increase's nodes
// never go to a pod created after it. Both rounds first take only
// increases made before the next burst's first pod was created, so a pod
// marked after its burst's increase does not take the next burst's; a
// third round lets the pods still left take any increase (an autoscaler
// slower than the interval).
func attribute(pods []PodTimes, incs []Increase) {
	slices.SortStableFunc(pods, func(a, b PodTimes) int {
		am, bm := !a.Unschedulable.IsZero(), !b.Unschedulable.IsZero()
		switch {
		case am && !bm:
			return -1
		case !am && bm:
			return 1
		case am:
			if c := a.Unschedulable.Compare(b.Unschedulable); c != 0 {
				return c
			}
		}
		return a.Created.Compare(b.Created)
	})
	incs = slices.Clone(incs)
	slices.SortStableFunc(incs, func(a, b Increase) int { return a.At.Compare(b.At) })
	left := make([]int, len(incs))
	for i, inc := range incs {
		left[i] = inc.Delta
	}
	take := func(p *PodTimes, from, until time.Time) {
		for i := range incs {
			if left[i] > 0 && !incs[i].At.Before(from) && (until.IsZero() || incs[i].At.Before(until)) {
				p.Increase = incs[i].At
				left[i]--
				return
			}
		}
	}
	next := nextBurstStarts(pods)
	for k := range pods {
		if !pods[k].Unschedulable.IsZero() {
			take(&pods[k], pods[k].Unschedulable, next[pods[k].Burst])
		}
	}
	for _, bounded := range []bool{true, false} {
		for k := range pods {
			if pods[k].Increase.IsZero() {
				var until time.Time
				if bounded {
					until = next[pods[k].Burst]
				}
				take(&pods[k], pods[k].Created, until)
			}
		}
	}
}

// nextBurstStarts returns, per burst, the creation of the next burst's
// first pod (zero for the last burst).
func nextBurstStarts(pods []PodTimes) map[int]time.Time {
	first := map[int]time.Time{}
	for _, p := range pods {
		if t, ok := first[p.Burst]; !ok || p.Created.Before(t) {
			first[p.Burst] = p.Created
		}
	}
	next := make(map[int]time.Time, len(first))
	for b := range first {
		var n time.Time
		for c, t := range first {
			if c > b && (n.IsZero() || t.Before(n)) {
				n = t
			}
		}
		next[b] = n
	}
	return next
}

// Loop is one autoscaler loop derived from consecutive samples.
type Loop struct {
	// End is the sample that first counted the loop.
	End time.Time `json:"end"`
	// Seconds is the loop's duration (the mean of the loops a sample
	// interval held, when it held more than one).
	Seconds float64 `json:"seconds"`
	// CPUSeconds is the process's CPU since the previous loop was counted,
	// shared equally among the loops counted together.
	CPUSeconds float64 `json:"cpuSeconds"`
	// Requests is the number of API requests since the previous loop.
	Requests float64 `json:"requests"`
	// Burst is true for loops within a burst's window.
	Burst bool `json:"burst"`
	// Functions are the seconds the loop's timed parts took (upstream's
	// function labels: cloudProviderRefresh, updateClusterState, scaleUp,
	// scaleDown...), shared like Seconds; what Seconds holds beyond their
	// sum is untimed.
	Functions map[string]float64 `json:"functions,omitempty"`
}

// loopWaitFunction is kscale's series of the time between loops, not a
// part of one.
const loopWaitFunction = "loopWait"

// loops turns samples into loops and charges each the requests received
// since the loop before it.
func loops(samples []Sample, reqs []Request) []Loop {
	var out []Loop
	var prev Sample
	havePrev := false
	var prevEnd time.Time
	r := 0
	for _, s := range samples {
		if !havePrev {
			prev, havePrev = s, true
			if s.Loops > 0 {
				prevEnd = s.At // loops before the first sample are not measured
			}
			continue
		}
		k := s.Loops - prev.Loops
		if k < 1 {
			continue
		}
		n := 0
		for r < len(reqs) && !reqs[r].At.After(s.At) {
			if !prevEnd.IsZero() && reqs[r].At.After(prevEnd) {
				n++
			}
			r++
		}
		parts := map[string]float64{}
		for f, v := range s.Functions {
			if d := (v - prev.Functions[f]) / k; d > 0 && f != loopWaitFunction {
				parts[f] = d
			}
		}
		for range int(k) {
			out = append(out, Loop{End: s.At, Seconds: (s.LoopSeconds - prev.LoopSeconds) / k,
				CPUSeconds: (s.CPUSeconds - prev.CPUSeconds) / k, Requests: float64(n) / k, Functions: parts})
		}
		prev, prevEnd = s, s.At
	}
	return out
}

// window is a time interval [From, To].
type window struct{ From, To time.Time }

// overlaps reports whether [from, to] and w share an instant.
func (w window) overlaps(from, to time.Time) bool { return !to.Before(w.From) && !from.After(w.To) }

// burstWindows runs from each burst's first pod creation to its last
// covering increase plus grace, or to the next burst when a pod of it was
// never covered.
func burstWindows(pods []PodTimes, bursts int, next func(b int) time.Time, grace time.Duration) []window {
	ws := make([]window, bursts)
	open := make([]bool, bursts)
	for _, p := range pods {
		if p.Burst < 0 || p.Burst >= bursts {
			continue
		}
		w := &ws[p.Burst]
		if w.From.IsZero() || p.Created.Before(w.From) {
			w.From = p.Created
		}
		if p.Increase.IsZero() {
			open[p.Burst] = true
		} else if p.Increase.Add(grace).After(w.To) {
			w.To = p.Increase.Add(grace)
		}
	}
	for b := range ws {
		if open[b] {
			ws[b].To = next(b)
		}
	}
	return ws
}

// markBurst flags the loops that ran in a burst window (for some of the
// time): the loop that makes a burst's increase is a burst loop even when
// it ends after the window, as a long loop of upstream's does.
func markBurst(ls []Loop, ws []window) {
	for i := range ls {
		start := ls[i].End.Add(-time.Duration(ls[i].Seconds * float64(time.Second)))
		for _, w := range ws {
			if w.overlaps(start, ls[i].End) {
				ls[i].Burst = true
			}
		}
	}
}
