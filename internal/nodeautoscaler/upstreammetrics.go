package nodeautoscaler

import (
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/nodeautoscaler/clusterstate"
	"github.com/kscale/kscale/internal/nodeautoscaler/scaleup"
	"github.com/kscale/kscale/internal/promreg"
)

// gpuNodeMetricsDeprecated prefixes the help of upstream's GPU-only
// counters, which upstream deprecated in 1.36.0 in favour of the GPU labels
// of the general ones.
const gpuNodeMetricsDeprecated = "(Deprecated since 1.36.0) "

// Upstream's skipped_scale_events_count label values.
const (
	directionUp         = "up"
	directionDown       = "down"
	cpuResourceLimit    = "CpuResourceLimit"
	memoryResourceLimit = "MemoryResourceLimit"
)

// scaleUpMetrics are upstream's scale-up counters, by GPU where upstream
// splits them.
type scaleUpMetrics struct {
	nodes, gpuNodes              *prometheus.CounterVec
	failures, nodeCreations      *prometheus.CounterVec
	gpuFailures, skipped         *prometheus.CounterVec
	groupsCreated, groupsDeleted *prometheus.CounterVec
	binpacking                   *prometheus.HistogramVec
}

func newScaleUpMetrics() *scaleUpMetrics {
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: name, Help: help}, labels)
	}
	gpu := []string{"gpu_resource_name", "gpu_name"}
	return &scaleUpMetrics{
		nodes:    counter("scaled_up_nodes_total", "Nodes added by scale-up.", append(gpu, "dra_drivers")...),
		gpuNodes: counter("scaled_up_gpu_nodes_total", gpuNodeMetricsDeprecated+"GPU nodes added by scale-up, by GPU name.", gpu...),
		failures: counter("failed_scale_ups_total", "Failed scale-ups by reason (timeout, cloudProviderError or the cloud's error code).",
			append([]string{"reason"}, append(gpu, "dra_drivers")...)...),
		nodeCreations: counter("failed_node_creations_total", "Nodes that failed to come up, by the scale-up failure reason.", "reason"),
		gpuFailures:   counter("failed_gpu_scale_ups_total", gpuNodeMetricsDeprecated+"Failed scale-ups of GPU node groups.", append([]string{"reason"}, gpu...)...),
		skipped: counter("skipped_scale_events_count",
			"Node groups a scale-up left out because one more node would exceed --cores-total (CpuResourceLimit) or --memory-total (MemoryResourceLimit).",
			"direction", "reason"),
		groupsCreated: counter("created_node_groups_total", "Node groups created by node autoprovisioning (kscale has none).", "group_type"),
		groupsDeleted: counter("deleted_node_groups_total", "Node groups deleted by node autoprovisioning (kscale has none).", "group_type"),
		binpacking: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: ns, Name: "binpacking_heterogeneity",
			Help:    "Groups of equivalent pods in one scale-up estimate, by the template's instance type and CPUs and the pods' namespace count.",
			Buckets: prometheus.ExponentialBuckets(1, 2, 6)}, []string{"instance_type", "cpu_count", "namespace_count"}),
	}
}

func (m *scaleUpMetrics) register(reg prometheus.Registerer) error {
	if err := promreg.Register(reg, "node autoscaler scale-up", m.nodes, m.gpuNodes, m.failures, m.nodeCreations, m.gpuFailures,
		m.skipped, m.groupsCreated, m.groupsDeleted, m.binpacking); err != nil {
		return err
	}
	// Upstream's InitMetrics creates these series at zero.
	for _, r := range []string{reasonCloudProviderError, reasonAPICallError, reasonTimeout} {
		m.failures.WithLabelValues(r, "", "", "")
		m.nodeCreations.WithLabelValues(r)
	}
	m.nodes.WithLabelValues("", "", "")
	for _, d := range []string{directionDown, directionUp} {
		for _, r := range []string{cpuResourceLimit, memoryResourceLimit} {
			m.skipped.WithLabelValues(d, r)
		}
	}
	return nil
}

// scaledUp counts n nodes added to a group with the given GPU.
func (m *scaleUpMetrics) scaledUp(gpuResource, gpuType string, n int) {
	m.nodes.WithLabelValues(gpuResource, gpuType, "").Add(float64(n))
	if gpuType != "" {
		m.gpuNodes.WithLabelValues(gpuResource, gpuType).Add(float64(n))
	}
}

// failed counts one failed scale-up of n nodes for reason.
func (m *scaleUpMetrics) failed(reason, gpuResource, gpuType string, n int) {
	m.failures.WithLabelValues(reason, gpuResource, gpuType, "").Inc()
	if gpuType != "" {
		m.gpuFailures.WithLabelValues(reason, gpuResource, gpuType).Inc()
	}
	m.nodeCreations.WithLabelValues(reason).Add(float64(n))
}

// skippedUp counts a group left out of a scale-up for resource.
func (m *scaleUpMetrics) skippedUp(resource string) {
	switch resource {
	case scaleup.ResourceCores:
		m.skipped.WithLabelValues(directionUp, cpuResourceLimit).Inc()
	case scaleup.ResourceMemory:
		m.skipped.WithLabelValues(directionUp, memoryResourceLimit).Inc()
	}
}

// skippedPodsRequestor is upstream's requestor label of skipped_pods_count.
const skippedPodsRequestor = "filter-out-pod-list-processor"

// loopMetrics are upstream's per-loop gauges the Autoscaler sets from what
// it observed.
type loopMetrics struct {
	taints      *prometheus.GaugeVec
	skippedPods *prometheus.GaugeVec
	overflowing prometheus.Gauge
	taintTypes  map[string]bool
}

func newLoopMetrics() *loopMetrics {
	return &loopMetrics{
		taints: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Name: "node_taints_count",
			Help: "Taints on the cluster's nodes by type: startup-taint, status-taint, other, the ignore-taint prefix, or the key of well-known taints."}, []string{"type"}),
		skippedPods: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Name: "skipped_pods_count",
			Help: "Pending pods left out of the last scale-up simulation (--max-unschedulable-pods-considered)."}, []string{"requestor"}),
		overflowing: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: ns, Name: "overflowing_controllers_count",
			Help: "Controllers whose pending pods are too heterogeneous to be treated as equivalent (kscale groups pods by spec, without a per-controller cap)."}),
		taintTypes: map[string]bool{},
	}
}

func (m *loopMetrics) register(reg prometheus.Registerer) error {
	return promreg.Register(reg, "node autoscaler loop state", m.taints, m.skippedPods, m.overflowing)
}

// observeTaints sets node_taints_count from the nodes; types seen before
// and gone now drop to 0.
func (m *loopMetrics) observeTaints(nodes []*corev1.Node, rules clusterstate.ReadinessRules, statusTaints []string) {
	counts := countTaints(nodes, rules, statusTaints)
	for t := range m.taintTypes {
		if _, ok := counts[t]; !ok {
			m.taints.WithLabelValues(t).Set(0)
		}
	}
	for t, n := range counts {
		m.taintTypes[t] = true
		m.taints.WithLabelValues(t).Set(float64(n))
	}
}

// observeScaleUp sets skipped_pods_count from a scale-up evaluation: the
// pods that fit no existing node but were left out of the simulation.
func (m *loopMetrics) observeScaleUp(plan scaleup.Plan) {
	m.skippedPods.WithLabelValues(skippedPodsRequestor).Set(float64(plan.Unschedulable - plan.Considered))
}
