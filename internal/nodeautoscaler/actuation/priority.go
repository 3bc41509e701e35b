package actuation

import (
	"math"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/nodeautoscaler/options"
)

// stage is the pods of one priority range of --drain-priority-config, with
// the grace period they get.
type stage struct {
	grace time.Duration
	pods  []*corev1.Pod
	ds    []*corev1.Pod
}

// priorityRanges returns the configured ranges sorted by ascending
// priority; without --drain-priority-config one range covers every pod
// with --max-graceful-termination-sec.
func (c *Config) priorityRanges() []options.DrainPriority {
	if len(c.DrainPriorities) == 0 {
		return []options.DrainPriority{{Priority: math.MaxInt32, Grace: c.MaxGracefulTermination}}
	}
	r := slices.Clone(c.DrainPriorities)
	slices.SortFunc(r, func(a, b options.DrainPriority) int { return int(int64(a.Priority) - int64(b.Priority)) })
	return r
}

// stages splits the pods to evict into the priority ranges, lowest
// priority first, as upstream: a pod belongs to the range with the
// highest priority not above its own (the lowest range when its priority
// is below all). Ranges without pods are left out.
func (c *Config) stages(pods, ds []*corev1.Pod) []stage {
	ranges := c.priorityRanges()
	out := make([]stage, len(ranges))
	for i, r := range ranges {
		out[i].grace = r.Grace
	}
	for _, p := range pods {
		i := rangeOf(p, ranges)
		out[i].pods = append(out[i].pods, p)
	}
	for _, p := range ds {
		i := rangeOf(p, ranges)
		out[i].ds = append(out[i].ds, p)
	}
	return slices.DeleteFunc(out, func(s stage) bool { return len(s.pods) == 0 && len(s.ds) == 0 })
}

// rangeOf returns the index of the pod's range in ranges (sorted
// ascending).
func rangeOf(p *corev1.Pod, ranges []options.DrainPriority) int {
	var prio int32
	if p.Spec.Priority != nil {
		prio = *p.Spec.Priority
	}
	i := 0
	for j, r := range ranges {
		if r.Priority <= prio {
			i = j
		}
	}
	return i
}
