package offline

import (
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/cloudprovider/nodetemplate"
	"github.com/kscale/kscale/internal/scenario"
)

// watches are what the samples record only because an expectation asks.
type watches struct {
	zones     bool
	workloads []*workload
}

func (w *World) watch(expect []scenario.Expectation) {
	seen := map[string]bool{}
	for _, e := range expect {
		if e.ZoneNodes != nil {
			w.watches.zones = true
		}
		if u := e.MaxUnavailable; u != nil && !seen[u.Workload] && w.byName[u.Workload] != nil {
			seen[u.Workload] = true
			w.watches.workloads = append(w.watches.workloads, w.byName[u.Workload])
		}
	}
}

// sample records the state after a tick.
func (w *World) sample() {
	now := w.clock.Now()
	s := Sample{At: now.Sub(Start), Pending: w.pending, Pods: len(w.cluster.pods), Groups: map[string]GroupSample{},
		Requested: w.cluster.requested, Allocatable: w.cluster.allocatable}
	unneeded := w.autoscaler.ScaleDownCandidates()
	for _, st := range w.autoscaler.State() {
		id := st.Group.ID
		if !w.seen[id] {
			w.seen[id] = true
			w.res.GroupOrder = append(w.res.GroupOrder, id)
		}
		s.Groups[id] = GroupSample{Target: st.Group.TargetSize, Ready: st.Readiness.Ready,
			Nodes: st.Readiness.Registered(), BackedOff: st.Backoff.BackedOff, Unneeded: unneeded[id]}
	}
	if w.watches.zones {
		s.Zones = map[string]int{}
		for _, n := range w.cluster.nodes {
			if z, ok := n.Labels[nodetemplate.LabelZone]; ok {
				s.Zones[z]++
			}
		}
	}
	if len(w.watches.workloads) > 0 {
		s.Unavailable = map[string]int{}
		for _, wl := range w.watches.workloads {
			s.Unavailable[wl.spec.Name] = w.unavailable(wl, now)
		}
	}
	w.res.Samples = append(w.res.Samples, s)
}

// unavailable is the workload's desired pods (replicas; for a Job the
// replicas not yet completed) minus its pods that are bound and ready
// (running for at least the workload's startup time), at least 0.
func (w *World) unavailable(wl *workload, now time.Time) int {
	desired := wl.replicas
	pods := w.cluster.ownedBy(wl.spec.Namespace, wl.spec.Name)
	switch wl.spec.Kind {
	case "Job":
		desired -= wl.completed
	case "Pods":
		pods = w.podsOf(wl)
	}
	ready := 0
	for _, p := range pods {
		if podReady(p, wl.spec.StartupTime.Duration, now) {
			ready++
		}
	}
	return max(0, desired-ready)
}

// podReady reports whether a pod is bound and has run for startup.
func podReady(p *corev1.Pod, startup time.Duration, now time.Time) bool {
	return p.Spec.NodeName != "" && p.Status.StartTime != nil && !now.Before(p.Status.StartTime.Add(startup))
}

// finish fills the final state.
func (w *World) finish() {
	w.recordPendingWaits()
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
