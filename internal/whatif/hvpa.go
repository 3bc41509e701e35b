package whatif

import (
	"math"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
)

// HVPA's model, written from gardener/hvpa-controller v0.17.0 (commit
// 44e7f712, README "Weight based scaling" and controllers/hvpa_controller.go):
//
//   - an HPA and a VPA run in recommendation-only mode;
//   - the stage whose replica interval holds the current count gives the
//     VPA weight w (0..100); at a stage of weight 100 the previous (scale-in)
//     or next (scale-out) fractional stage's weight is used;
//   - horizontally the count moves by (desired − current)·(100 − w)/100,
//     rounded away from current, unless w is 100 or the horizontal
//     stabilization window since the last scaling has not passed;
//   - vertically each request moves by (target − current)·w/100; a rise
//     needs the HPA to be limited by its maximum, a change needs the
//     vertical window since the last scaling and a size of at least
//     MinChange: the smaller of Value and Percentage of the current
//     request (200m CPU and 200M memory when unset);
//   - a vertical change edits the pod template: every pod is replaced.
//
// Not modelled: maintenance windows, update modes other than Auto, the
// override after an OOM kill or a failed liveness probe, limits scaling.

// hvpaSyncPeriod is how often the model reconciles.
const hvpaSyncPeriod = time.Minute

// hvpaRunner is one HVPA with its recommenders and state.
type hvpaRunner struct {
	spec      *HVPA
	hpa       *hpaRunner
	vpa       *recommender
	next      time.Time
	lastScale time.Time
}

func newHVPARunner(h *HVPA, name string) *hvpaRunner {
	return &hvpaRunner{
		spec: h,
		hpa:  newHPARunner(&h.HPA),
		vpa:  newRecommender(name, containerPolicy(nil, h.MinAllowed.List(), h.MaxAllowed.List()), vpav1.UpdateModeOff, 0),
	}
}

func (h *hvpaRunner) due(now time.Time) bool {
	if now.Before(h.next) {
		return false
	}
	h.next = now.Add(hvpaSyncPeriod)
	return true
}

// weight is the VPA weight of the stage holding current.
func (h *hvpaRunner) weight(desired, current int32) int32 {
	last, lookNext := int32(100), false
	var w int32
	for _, iv := range h.spec.Intervals {
		if lookNext {
			if iv.VPAWeight < 100 {
				return iv.VPAWeight
			}
			continue
		}
		start, end := iv.StartReplicas, iv.LastReplicas
		if start == 0 {
			start = h.spec.HPA.MinReplicas
		}
		if end == 0 {
			end = h.spec.HPA.MaxReplicas
		}
		if iv.VPAWeight < 100 {
			last = iv.VPAWeight
		}
		if current < start || current > end {
			continue
		}
		w = iv.VPAWeight
		if w == 100 && desired < current {
			return last
		}
		if w == 100 && desired > current {
			lookNext = true
			continue
		}
		return w
	}
	return w
}

// runHVPA is one HVPA reconcile.
func (r *run) runHVPA(l Load) {
	h := r.hvpa
	for _, p := range r.pods {
		if p.ready(r.now) {
			h.vpa.observe(p, r.now)
		}
	}
	h.vpa.recommend()
	raw, ok := h.hpa.proposal(r.now, r.replicas, r.pods, l)
	desired := r.replicas
	if ok {
		desired = h.hpa.decide(r.now, r.replicas, r.pods, l)
	}
	limited := ok && raw > h.spec.HPA.MaxReplicas
	w := h.weight(desired, r.replicas)
	since := r.now.Sub(h.lastScale)
	if cpu, mem, changed := h.vertical(r, w, limited, since); changed {
		r.cpuReq, r.memReq = cpu, mem
		for _, p := range r.pods {
			p.cpuReq, p.memReq = cpu, mem
			r.acc.evictions++
		}
		h.lastScale = r.now
	}
	if n := h.horizontal(desired, r.replicas, w, since); n != r.replicas {
		r.setReplicas(n)
		h.lastScale = r.now
	}
}

// horizontal is the weighted replica count, or current when blocked.
func (h *hvpaRunner) horizontal(desired, current, w int32, since time.Duration) int32 {
	if desired == current || w == 100 {
		return current
	}
	step := float64(desired-current) * float64(100-w) / 100
	var n int32
	if desired > current {
		n = int32(math.Ceil(float64(current) + step))
		if since < h.spec.HorizontalScaleUpWindow.Duration {
			return current
		}
	} else {
		n = int32(math.Floor(float64(current) + step))
		if since < h.spec.HorizontalScaleDownWindow.Duration {
			return current
		}
	}
	return n
}

// vertical returns the new template requests and whether they changed.
func (h *hvpaRunner) vertical(r *run, w int32, limited bool, since time.Duration) (float64, float64, bool) {
	cpu, mem := r.cpuReq, r.memReq
	if h.vpa.rec == nil || w == 0 || len(r.pods) == 0 {
		return cpu, mem, false
	}
	c, ok := h.vpa.process(r.pods[len(r.pods)-1]).Find(container)
	if !ok {
		return cpu, mem, false
	}
	target := c.Target
	newCPU, okC := h.move(corev1.ResourceCPU, cpu, target.Cpu().AsApproximateFloat64(), w, limited, since)
	newMem, okM := h.move(corev1.ResourceMemory, mem, target.Memory().AsApproximateFloat64(), w, limited, since)
	return newCPU, newMem, okC || okM
}

// move applies one resource's weighted change when nothing blocks it.
func (h *hvpaRunner) move(name corev1.ResourceName, cur, target float64, w int32, limited bool, since time.Duration) (float64, bool) {
	diff := (target - cur) * float64(w) / 100
	switch {
	case diff > 0:
		if !limited || since < h.spec.ScaleUp.StabilizationWindow.Duration || diff < threshold(h.spec.ScaleUp.MinChange, name, cur) {
			return cur, false
		}
	case diff < 0:
		if since < h.spec.ScaleDown.StabilizationWindow.Duration || -diff < threshold(h.spec.ScaleDown.MinChange, name, cur) {
			return cur, false
		}
	default:
		return cur, false
	}
	return cur + diff, true
}

// threshold is MinChange for a resource at the current request: the
// smaller of the value and the percentage (cores or bytes).
func threshold(m MinChange, name corev1.ResourceName, cur float64) float64 {
	p, def := m.CPU, resource.MustParse("200m")
	if name == corev1.ResourceMemory {
		p, def = m.Memory, resource.MustParse("200M")
	}
	if p.Value == nil && p.Percentage == nil {
		return def.AsApproximateFloat64()
	}
	if p.Percentage == nil {
		return p.Value.Float()
	}
	pct := cur * float64(*p.Percentage) / 100
	if p.Value == nil {
		return pct
	}
	return math.Min(pct, p.Value.Float())
}
