package nodeautoscaler

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/kscale/kscale/internal/nodeautoscaler/clusterstate"
	"github.com/kscale/kscale/internal/promreg"
)

// metrics are the loop's Prometheus series.
type metrics struct {
	inBackoff      *prometheus.GaugeVec
	targetSize     *prometheus.GaugeVec
	failedScaleUps *prometheus.CounterVec
	scaledUp       *prometheus.CounterVec
	oldRemoved     prometheus.Counter
	mismatch       *prometheus.GaugeVec
	known          map[string]bool
}

// gpuLabels are upstream's GPU and DRA labels of the scale-up counters;
// kscale records no GPU or DRA detail, so they are empty, as upstream's
// for nodes without GPUs.
var gpuLabels = []string{"gpu_resource_name", "gpu_name", "dra_drivers"}

// Upstream's failed_scale_ups_total reasons besides the cloud's codes.
const (
	reasonTimeout            = "timeout"
	reasonCloudProviderError = "cloudProviderError"
	reasonAPICallError       = "apiCallError"
)

// newMetrics registers the loop's series on reg; node_group_target_count
// only with perGroup (--emit-per-nodegroup-metrics), as upstream.
func newMetrics(reg prometheus.Registerer, perGroup bool) (*metrics, error) {
	m := &metrics{
		inBackoff: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: "cluster_autoscaler", Name: "node_group_in_backoff",
			Help: "1 when the node group is backed off after a failed scale-up, else 0."}, []string{"node_group"}),
		targetSize: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: "cluster_autoscaler", Name: "node_group_target_count",
			Help: "Target size of the node group."}, []string{"node_group"}),
		failedScaleUps: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "cluster_autoscaler", Name: "failed_scale_ups_total",
			Help: "Failed scale-ups by reason (timeout, cloudProviderError or the cloud's error code)."}, append([]string{"reason"}, gpuLabels...)),
		scaledUp: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "cluster_autoscaler", Name: "scaled_up_nodes_total",
			Help: "Nodes added by scale-up."}, gpuLabels),
		oldRemoved: prometheus.NewCounter(prometheus.CounterOpts{Namespace: "cluster_autoscaler", Name: "old_unregistered_nodes_removed_count",
			Help: "Instances removed because they never registered as nodes within --max-node-provision-time."}),
		mismatch: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: "kscale", Name: "node_group_template_mismatch",
			Help: "1 while the node group's real nodes differ from its template or it is not scaled up for some pods that do not fit them, else 0."}, []string{"node_group"}),
		known: map[string]bool{},
	}
	if err := promreg.Register(reg, "node autoscaler", m.inBackoff, m.failedScaleUps, m.scaledUp, m.oldRemoved, m.mismatch); err != nil {
		return nil, err
	}
	// Upstream's InitMetrics creates these series at zero.
	for _, r := range []string{reasonTimeout, reasonCloudProviderError, reasonAPICallError} {
		m.failedScaleUps.WithLabelValues(r, "", "", "")
	}
	m.scaledUp.WithLabelValues("", "", "")
	if perGroup {
		if err := promreg.Register(reg, "node autoscaler", m.targetSize); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// update sets the per-group series and deletes those of vanished groups.
func (m *metrics) update(groups []clusterstate.GroupState) {
	seen := map[string]bool{}
	for _, g := range groups {
		id := g.Group.ID
		seen[id] = true
		v := 0.0
		if g.Backoff.BackedOff {
			v = 1
		}
		m.inBackoff.WithLabelValues(id).Set(v)
		m.targetSize.WithLabelValues(id).Set(float64(g.Group.TargetSize))
		m.mismatch.WithLabelValues(id).Set(boolValue(g.TemplateMismatch != ""))
	}
	for id := range m.known {
		if !seen[id] {
			m.inBackoff.DeleteLabelValues(id)
			m.targetSize.DeleteLabelValues(id)
			m.mismatch.DeleteLabelValues(id)
		}
	}
	m.known = seen
}

// failedScaleUp counts a failed scale-up under upstream's reason: a failed
// IncreaseSize (kscale's APIError) is cloudProviderError.
func (m *metrics) failedScaleUp(code string) {
	if code == "APIError" {
		code = reasonCloudProviderError
	}
	m.failedScaleUps.WithLabelValues(code, "", "", "").Inc()
}

// observe counts the nodes of scale-ups and of removed never-registered
// instances.
func (m *metrics) observe(e Event) {
	switch {
	case e.Type == EventScaleUp && e.Delta > 0:
		m.scaledUp.WithLabelValues("", "", "").Add(float64(e.Delta))
	case e.Type == EventDeleteNodes && e.Reason == DeleteReasonLongUnregistered:
		m.oldRemoved.Add(float64(-e.Delta))
	}
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
