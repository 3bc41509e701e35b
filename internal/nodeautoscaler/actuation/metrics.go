package actuation

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/kscale/kscale/internal/nodeautoscaler/scaledown"
	"github.com/kscale/kscale/internal/nodeautoscaler/template"
	"github.com/kscale/kscale/internal/promreg"
)

// Metrics are the scale-down series. The zero registry registers nothing.
type Metrics struct {
	failed   *prometheus.CounterVec
	duration *prometheus.HistogramVec
	deleted  *prometheus.CounterVec
	gpu      *prometheus.CounterVec
	unneeded prometheus.Gauge
	evicted  *prometheus.CounterVec
	status   *statusMetrics
}

// Eviction results, upstream's values of the eviction_result label: a
// refused eviction (PDB) and an API error both count as failed.
const (
	evictionSucceeded = "succeeded"
	evictionRefused   = "failed"
	evictionError     = "failed"
)

// Upstream's scaled_down_nodes_total reasons: an unready node is
// "unready", else an empty node is "empty" and a drained one
// "underutilized".
func scaleDownReason(kind Kind, ready bool) string {
	switch {
	case !ready:
		return "unready"
	case kind == KindEmpty:
		return "empty"
	default:
		return "underutilized"
	}
}

// gpuLabels are upstream's GPU and DRA labels of the scale-up and
// scale-down counters; kscale records no GPU or DRA detail, so they are
// empty, as upstream's for nodes without GPUs.
var gpuLabels = []string{"gpu_resource_name", "gpu_name", "dra_drivers"}

// NewMetrics creates the scale-down metrics and registers them on reg
// (nil: not registered).
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	const ns = "cluster_autoscaler"
	m := &Metrics{
		failed: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "failed_scale_down_total",
			Help: "Failed node deletions by kind (empty, nonempty) and reason code (1 taint, 2 eviction, 3 cloud delete)."},
			[]string{"kind", "reason"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: ns, Name: "node_deletion_duration_seconds",
			Help:    "Time from the start of a node deletion to its end, success or failure, by kind (empty, nonEmpty).",
			Buckets: []float64{1, 5, 10, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200}}, []string{"kind"}),
		deleted: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "scaled_down_nodes_total",
			Help: "Nodes removed by scale-down, by reason (empty, underutilized, unready)."}, append([]string{"reason"}, gpuLabels...)),
		gpu: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "scaled_down_gpu_nodes_total",
			Help: "(Deprecated since 1.36.0) GPU nodes removed by scale-down, by reason and GPU name."}, []string{"reason", "gpu_resource_name", "gpu_name"}),
		unneeded: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: ns, Name: "unneeded_nodes_count",
			Help: "Nodes found unneeded by the last scale-down planning."}),
		evicted: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "evicted_pods_total",
			Help: "Pod eviction attempts during scale-down by eviction_result (succeeded, failed)."},
			[]string{"eviction_result"}),
	}
	if err := promreg.Register(reg, "scale-down", m.failed, m.duration, m.deleted, m.gpu, m.unneeded, m.evicted); err != nil {
		return nil, err
	}
	var err error
	if m.status, err = newStatusMetrics(reg); err != nil {
		return nil, err
	}
	// Upstream's InitMetrics creates these series at zero.
	for _, r := range []string{"empty", "underutilized", "unready"} {
		m.deleted.WithLabelValues(r, "", "", "")
	}
	m.evicted.WithLabelValues(evictionSucceeded)
	m.evicted.WithLabelValues(evictionRefused)
	return m, nil
}

// SetUnneeded records the number of unneeded nodes.
func (m *Metrics) SetUnneeded(n int) { m.unneeded.Set(float64(n)) }

// observe records one finished deletion of the candidate c.
func (m *Metrics) observe(o Outcome, c scaledown.Candidate) {
	m.duration.WithLabelValues(string(o.Kind)).Observe(o.Ended.Sub(o.Started).Seconds())
	if o.Failed() {
		kind := "empty"
		if o.Kind == KindNonEmpty {
			kind = "nonempty"
		}
		m.failed.WithLabelValues(kind, o.Failure.Code()).Inc()
		return
	}
	reason := scaleDownReason(o.Kind, c.Ready)
	gpuResource, gpuType := template.GPUOf(c.Node)
	m.deleted.WithLabelValues(reason, gpuResource, gpuType, "").Inc()
	if gpuType != "" {
		m.gpu.WithLabelValues(reason, gpuResource, gpuType).Inc()
	}
}

func (m *Metrics) eviction(result string) { m.evicted.WithLabelValues(result).Inc() }
