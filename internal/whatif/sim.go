package whatif

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/kscale/kscale/internal/whatif/hpa"
)

// epoch is the simulated clock's start.
var epoch = time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC) // a Monday

// pod is one simulated replica.
type pod struct {
	name             string
	created, readyAt time.Time
	cpuReq, memReq   float64 // cores, bytes
	cpuUsed, memUsed float64
	cpuDemand        float64
}

func (p *pod) ready(now time.Time) bool { return !now.Before(p.readyAt) }

// Load is the workload's demand at one step.
type Load struct {
	// Rate is the request rate in requests/s in total.
	Rate float64
	// CPU is the cores the requests need in total.
	CPU float64
}

// run is one configuration's simulation.
type run struct {
	f        *File
	cfg      *Configuration
	now      time.Time
	pods     []*pod
	replicas int32
	nextID   int
	cpuReq   float64
	memReq   float64
	hpa      *hpaRunner
	vpa      *recommender
	hvpa     *hvpaRunner
	nextRec  time.Time
	nextUpd  time.Time
	acc      accumulator
}

// Run simulates every configuration of the file on the same trace and
// clock and returns their results in file order.
func Run(f *File, loads []Load) []Result {
	out := make([]Result, len(f.Configurations))
	for i := range f.Configurations {
		out[i] = runOne(f, &f.Configurations[i], loads)
	}
	return out
}

func runOne(f *File, cfg *Configuration, loads []Load) Result {
	r := &run{f: f, cfg: cfg, now: epoch, replicas: cfg.Replicas}
	r.cpuReq, r.memReq = cpuMem(cfg.Requests)
	if cfg.HPA != nil {
		r.hpa = newHPARunner(cfg.HPA)
	}
	if v := cfg.VPA; v != nil {
		r.vpa = newRecommender(f.Workload.Name, v.policy(), v.mode(), v.CPUHalfLife.Duration)
	}
	if h := cfg.HVPA; h != nil {
		r.hvpa = newHVPARunner(h, f.Workload.Name)
	}
	r.acc.init(f, len(loads))
	for _, p := range r.reconcile() {
		p.readyAt = r.now // the initial replicas run already
	}
	step := f.step()
	for i, l := range loads {
		r.now = epoch.Add(time.Duration(i) * step)
		r.serve(l)
		r.acc.add(i, r, step)
		r.control(l)
		r.reconcile()
	}
	return r.acc.result(cfg.Name, r)
}

// serve spreads the load over the ready replicas and sets their usage.
func (r *run) serve(l Load) {
	w := &r.f.Workload
	ready := 0
	for _, p := range r.pods {
		if p.ready(r.now) {
			ready++
		}
	}
	for _, p := range r.pods {
		p.cpuUsed, p.memUsed, p.cpuDemand = 0, 0, 0
		if !p.ready(r.now) || ready == 0 {
			continue
		}
		demand := l.CPU/float64(ready) + w.BaseCPU.Float()
		p.cpuDemand = demand
		p.cpuUsed = math.Min(demand, p.cpuReq+w.NodeHeadroom.Float())
		p.memUsed = w.BaseMemory.Float() + w.MemoryPerRequestRate.Float()*l.Rate/float64(ready)
	}
	r.acc.demand = l.CPU + float64(ready)*w.BaseCPU.Float()
	if ready == 0 {
		r.acc.demand = l.CPU
	}
}

// control runs the autoscalers that are due.
func (r *run) control(l Load) {
	if r.hpa != nil && r.hpa.due(r.now) {
		r.setReplicas(r.hpa.decide(r.now, r.replicas, r.pods, l))
	}
	if r.vpa != nil {
		r.runVPA()
	}
	if r.hvpa != nil && r.hvpa.due(r.now) {
		r.runHVPA(l)
	}
}

func (r *run) setReplicas(n int32) {
	if n != r.replicas {
		r.acc.replicaChanges++
	}
	r.replicas = n
}

func (r *run) runVPA() {
	v := r.cfg.VPA
	if !r.now.Before(r.nextRec) {
		for _, p := range r.pods {
			if p.ready(r.now) {
				r.vpa.observe(p, r.now)
			}
		}
		r.vpa.recommend()
		r.nextRec = r.now.Add(v.recommenderInterval())
	}
	if r.now.Before(r.nextUpd) {
		return
	}
	r.nextUpd = r.now.Add(v.updaterInterval())
	for _, d := range r.vpa.update(r.pods, int(r.replicas), v, r.now) {
		c, ok := d.result.Find(container)
		if d.inPlace && ok {
			d.pod.setRequests(c.Requests)
			r.acc.resizes++
			continue
		}
		r.evict(d.pod)
	}
}

// evict deletes a pod; the controller creates its replacement.
func (r *run) evict(p *pod) {
	r.pods = slices.DeleteFunc(r.pods, func(x *pod) bool { return x == p })
	if r.vpa != nil {
		r.vpa.forget(p)
	}
	r.acc.evictions++
}

// reconcile is the ReplicaSet: it creates missing pods (with the VPA
// admission's requests) and deletes surplus ones, not-ready and newest
// first. It returns the created pods.
func (r *run) reconcile() []*pod {
	var created []*pod
	for int32(len(r.pods)) < r.replicas {
		p := &pod{name: fmt.Sprintf("%s-%d", r.f.Workload.Name, r.nextID), created: r.now,
			readyAt: r.now.Add(r.f.Workload.StartupTime.Duration), cpuReq: r.cpuReq, memReq: r.memReq}
		r.nextID++
		if r.vpa != nil {
			r.vpa.admit(p)
		}
		r.pods = append(r.pods, p)
		created = append(created, p)
	}
	for int32(len(r.pods)) > r.replicas {
		i := r.surplus()
		if r.vpa != nil {
			r.vpa.forget(r.pods[i])
		}
		r.pods = slices.Delete(r.pods, i, i+1)
	}
	return created
}

// surplus picks the pod a scale-down deletes: a not-ready one, else the newest.
func (r *run) surplus() int {
	for i := len(r.pods) - 1; i >= 0; i-- {
		if !r.pods[i].ready(r.now) {
			return i
		}
	}
	return len(r.pods) - 1
}

// hpaRunner is one HPA with its state.
type hpaRunner struct {
	spec     *HPA
	state    hpa.State
	next     time.Time
	behavior *hpa.Behavior
	tol      hpa.Tolerances
}

func newHPARunner(h *HPA) *hpaRunner {
	b, tol := h.normalized()
	return &hpaRunner{spec: h, behavior: b, tol: tol}
}

func (h *hpaRunner) due(now time.Time) bool {
	if now.Before(h.next) {
		return false
	}
	h.next = now.Add(h.spec.syncPeriod())
	return true
}

// proposal is the replica calculation for the HPA's metric.
func (h *hpaRunner) proposal(now time.Time, current int32, pods []*pod, l Load) (int32, bool) {
	in := make([]hpa.Pod, 0, len(pods))
	ready := 0
	for _, p := range pods {
		if p.ready(now) {
			ready++
		}
	}
	for _, p := range pods {
		x := hpa.Pod{Pending: !p.ready(now), RequestMilli: int64(p.cpuReq * 1000)}
		if !x.Pending {
			x.HasMetric = true
			if h.spec.Metric == MetricCPU {
				x.MetricMilli = int64(p.cpuUsed * 1000)
			} else {
				x.MetricMilli = int64(l.Rate / float64(ready) * 1000)
			}
		}
		in = append(in, x)
	}
	var n int32
	var err error
	if h.spec.Metric == MetricCPU {
		n, _, err = hpa.CPUUtilizationReplicas(current, int32(h.spec.Target), h.tol, in)
	} else {
		n, _, err = hpa.PodsMetricReplicas(current, int64(h.spec.Target*1000), h.tol, in)
	}
	return n, err == nil
}

// decide is one HPA reconcile: the early exits, the proposal and the
// normalization.
func (h *hpaRunner) decide(now time.Time, current int32, pods []*pod, l Load) int32 {
	s := h.spec
	switch {
	case current > s.MaxReplicas:
		return s.MaxReplicas
	case current < s.MinReplicas:
		return s.MinReplicas
	}
	n, ok := h.proposal(now, current, pods, l)
	if !ok {
		return current
	}
	return h.state.Normalize(now, current, n, s.MinReplicas, s.MaxReplicas, h.behavior, 5*time.Minute)
}
