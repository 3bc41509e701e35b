package actuation

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/nodeautoscaler/scaledown"
)

// drain is one stage of emptying a node: the pods of one
// --drain-priority-config priority range (all pods without it). pods must
// go before the next stage or the node's deletion; ds (DaemonSet pods) are
// evicted best effort: tried on every step until the eviction deadline,
// never waited for.
type drain struct {
	cand          scaledown.Candidate
	started       time.Time
	evictDeadline time.Time
	goneDeadline  time.Time
	lastEviction  time.Time
	maxGrace      time.Duration
	headroom      time.Duration
	pods          []*corev1.Pod
	done          []bool
	evicted       int
	ds            []*corev1.Pod
	dsDone        []bool
}

// newDrain starts a stage at now whose pods get at most maxGrace to
// terminate.
func newDrain(c scaledown.Candidate, st stage, now time.Time, cfg Config) *drain {
	return &drain{
		cand: c, started: now, evictDeadline: now.Add(cfg.MaxPodEvictionTime),
		maxGrace: st.grace, headroom: cfg.PodGoneHeadroom,
		pods: st.pods, done: make([]bool, len(st.pods)),
		ds: st.ds, dsDone: make([]bool, len(st.ds)),
	}
}

// evictBestEffort tries every DaemonSet pod not evicted yet once, until
// the eviction deadline; failures are not reported.
func (d *drain) evictBestEffort(ctx context.Context, c Cluster, now time.Time) {
	if !now.Before(d.evictDeadline) && !now.Equal(d.started) {
		return
	}
	for i, p := range d.ds {
		if d.dsDone[i] {
			continue
		}
		err := c.EvictPod(ctx, p, int64(d.grace(p)/time.Second))
		d.dsDone[i] = err == nil || IsPodGone(err)
	}
}

// evict tries every pod not evicted yet once, then the DaemonSet pods best
// effort.
func (d *drain) evict(ctx context.Context, c Cluster, m *Metrics, now time.Time) {
	defer d.evictBestEffort(ctx, c, now)
	for i, p := range d.pods {
		if d.done[i] {
			continue
		}
		grace := d.grace(p)
		err := c.EvictPod(ctx, p, int64(grace/time.Second))
		switch {
		case err == nil:
			m.eviction(evictionSucceeded)
			d.evicted++
		case IsPodGone(err):
		case IsEvictionRefused(err):
			m.eviction(evictionRefused)
			continue
		default:
			m.eviction(evictionError)
			continue
		}
		d.done[i] = true
		d.lastEviction = now
		if end := now.Add(grace + d.headroom); end.After(d.goneDeadline) {
			d.goneDeadline = end
		}
	}
}

// grace is the pod's termination grace period, capped.
func (d *drain) grace(p *corev1.Pod) time.Duration {
	g := d.maxGrace
	if s := p.Spec.TerminationGracePeriodSeconds; s != nil && time.Duration(*s)*time.Second < g {
		g = time.Duration(*s) * time.Second
	}
	return g
}

func (d *drain) allEvicted() bool { return d.remaining() == 0 }

func (d *drain) remaining() int {
	n := 0
	for _, ok := range d.done {
		if !ok {
			n++
		}
	}
	return n
}

func (d *drain) firstRemaining() string {
	for i, ok := range d.done {
		if !ok {
			return d.pods[i].Namespace + "/" + d.pods[i].Name
		}
	}
	return ""
}

// podsGone reports whether every evicted pod has left the node: deleted,
// replaced by a pod with another UID, or finished.
func (d *drain) podsGone(ctx context.Context, c Cluster) (bool, error) {
	for _, p := range d.pods {
		cur, err := c.GetPod(ctx, p.Namespace, p.Name)
		if IsPodGone(err) {
			continue
		}
		if err != nil {
			return false, err
		}
		if cur.UID != p.UID || cur.Spec.NodeName != d.cand.Node.Name ||
			cur.Status.Phase == corev1.PodSucceeded || cur.Status.Phase == corev1.PodFailed {
			continue
		}
		return false, nil
	}
	return true, nil
}
