package offline

import (
	"time"
)

// sample records the state after a tick.
func (w *World) sample() {
	s := Sample{At: w.clock.Now().Sub(Start), Pending: w.pending, Groups: map[string]GroupSample{}}
	for _, st := range w.autoscaler.State() {
		id := st.Group.ID
		if !w.seen[id] {
			w.seen[id] = true
			w.res.GroupOrder = append(w.res.GroupOrder, id)
		}
		s.Groups[id] = GroupSample{Target: st.Group.TargetSize, Ready: st.Readiness.Ready,
			Nodes: st.Readiness.Registered(), BackedOff: st.Backoff.BackedOff}
	}
	w.res.Samples = append(w.res.Samples, s)
}

// finish fills the final state.
func (w *World) finish() {
	f := &w.res.Final
	f.Time = w.clock.Now().Sub(Start).String()
	f.Groups = map[string]GroupFinal{}
	f.PendingPods = w.pending
	f.Nodes = len(w.cluster.nodes)
	f.MaxLoop = w.res.MaxLoopWall.Round(time.Microsecond).String()
	for _, st := range w.autoscaler.State() {
		f.Groups[st.Group.ID] = GroupFinal{Min: st.Group.MinSize, Max: st.Group.MaxSize, Target: st.Group.TargetSize,
			Ready: st.Readiness.Ready, BackedOff: st.Backoff.BackedOff, BackoffReason: st.Backoff.Reason.Code}
	}
}

// sampleAt returns the last sample at or before t.
func (r *Result) sampleAt(t time.Duration) (Sample, bool) {
	var out Sample
	found := false
	for _, s := range r.Samples {
		if s.At > t {
			break
		}
		out, found = s, true
	}
	return out, found
}
