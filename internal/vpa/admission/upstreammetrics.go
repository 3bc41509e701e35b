package admission

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	admissionv1 "k8s.io/api/admission/v1"

	"github.com/kscale/kscale/internal/promreg"
)

// upstreamMetrics are upstream VPA's vpa_admission_controller_* families
// (pkg/utils/metrics/admission), beside kscale's own.
type upstreamMetrics struct {
	pods      *prometheus.CounterVec
	latency   *prometheus.HistogramVec
	execution *prometheus.HistogramVec
}

// latencyBuckets are upstream's admission latency buckets (0.01s to 300s).
var latencyBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300}

func newUpstreamMetrics(reg prometheus.Registerer) (*upstreamMetrics, error) {
	const ns, sub = "vpa", "admission_controller"
	m := &upstreamMetrics{
		pods: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: sub, Name: "admission_pods_total",
			Help: "Number of pods processed by VPA Admission Controller."}, []string{"applied"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: ns, Subsystem: sub, Name: "admission_latency_seconds",
			Help: "Time spent in VPA Admission Controller.", Buckets: latencyBuckets}, []string{"status", "resource"}),
		execution: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: ns, Subsystem: sub, Name: "execution_latency_seconds",
			Help: "Time spent in various parts of VPA admission controller.", Buckets: latencyBuckets}, []string{"step"}),
	}
	if err := promreg.Register(reg, "admission (upstream families)", m.pods, m.latency, m.execution); err != nil {
		return nil, err
	}
	for _, applied := range []string{"false", "true"} {
		m.pods.WithLabelValues(applied)
	}
	return m, nil
}

// reviewTimer times one review's steps.
type reviewTimer struct {
	m           *upstreamMetrics
	start, last time.Time
}

// timer starts timing a review; a nil receiver times nothing.
func (m *upstreamMetrics) timer() *reviewTimer {
	now := time.Now()
	return &reviewTimer{m: m, start: now, last: now}
}

// step observes the time since the previous step.
func (t *reviewTimer) step(name string) {
	now := time.Now()
	if t.m != nil {
		t.m.execution.WithLabelValues(name).Observe(now.Sub(t.last).Seconds())
	}
	t.last = now
}

// done observes the whole review under upstream's status (applied: a
// patch; error: a refusal; skipped: admitted unchanged) and resource
// (Pod, VPA, unknown) and counts a reviewed pod.
func (t *reviewTimer) done(req *admissionv1.AdmissionRequest, resp *admissionv1.AdmissionResponse) {
	if t.m == nil {
		return
	}
	resource := "unknown"
	switch {
	case req.Resource.Group == "" && req.Resource.Resource == "pods":
		resource = "Pod"
	case req.Resource.Group == "autoscaling.k8s.io" && req.Resource.Resource == "verticalpodautoscalers":
		resource = "VPA"
	}
	status := "skipped"
	switch {
	case !resp.Allowed:
		status = "error"
	case len(resp.Patch) > 0:
		status = "applied"
	}
	if resource == "Pod" && req.Operation == admissionv1.Create {
		applied := "false"
		if status == "applied" {
			applied = "true"
		}
		t.m.pods.WithLabelValues(applied).Inc()
	}
	t.m.latency.WithLabelValues(status, resource).Observe(time.Since(t.start).Seconds())
	t.m.execution.WithLabelValues("total").Observe(time.Since(t.start).Seconds())
}
