package actuation

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/nodeautoscaler/scaledown"
)

// drain is one node being emptied.
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
}

func newDrain(c scaledown.Candidate, now time.Time, cfg Config) *drain {
	return &drain{
		cand: c, started: now, evictDeadline: now.Add(cfg.MaxPodEvictionTime),
		maxGrace: cfg.MaxGracefulTermination, headroom: cfg.PodGoneHeadroom,
		pods: c.Pods, done: make([]bool, len(c.Pods)),
	}
}

// evict tries every pod not evicted yet once.
func (d *drain) evict(ctx context.Context, c Cluster, m *Metrics, now time.Time) {
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
