package live

import (
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/nodeautoscaler/clusterstate"
	"github.com/kscale/kscale/internal/promreg"
)

// ClusterLimits are the cluster-wide limits the autoscaler keeps
// (--max-nodes-total, --cores-total, --memory-total in GiB), exported as
// upstream does.
type ClusterLimits struct {
	// MaxNodesTotal is --max-nodes-total; 0 means no limit.
	MaxNodesTotal int
	// MinCores and MaxCores are --cores-total.
	MinCores, MaxCores int64
	// MinMemoryGiB and MaxMemoryGiB are --memory-total.
	MinMemoryGiB, MaxMemoryGiB int64
}

// errorTypes are upstream's errors_total types (cluster-autoscaler
// pkg/utils/errors/errors.go).
var errorTypes = []string{"cloudProviderError", "apiCallError", "internalError", "transientError",
	"configurationError", "nodeGroupDoesNotExistError", "unexpectedScaleDownStateError"}

// clusterMetrics are upstream's cluster-wide size and limit gauges.
type clusterMetrics struct {
	maxNodes   prometheus.Gauge
	cpuLimits  *prometheus.GaugeVec
	memLimits  *prometheus.GaugeVec
	cpuCurrent prometheus.Gauge
	memCurrent prometheus.Gauge
}

func newClusterMetrics(l ClusterLimits) *clusterMetrics {
	gauge := func(name, help string) prometheus.Gauge {
		return prometheus.NewGauge(prometheus.GaugeOpts{Namespace: ns, Name: name, Help: help})
	}
	m := &clusterMetrics{
		maxNodes: gauge("max_nodes_count", "Maximum number of nodes in all node groups (--max-nodes-total)."),
		cpuLimits: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Name: "cpu_limits_cores",
			Help: "Minimum and maximum number of cores in the cluster (--cores-total)."}, []string{"direction"}),
		memLimits: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Name: "memory_limits_bytes",
			Help: "Minimum and maximum memory in the cluster in bytes (--memory-total)."}, []string{"direction"}),
		cpuCurrent: gauge("cluster_cpu_current_cores", "Cores of the cluster's nodes (capacity), without nodes being deleted."),
		memCurrent: gauge("cluster_memory_current_bytes", "Memory of the cluster's nodes (capacity) in bytes, without nodes being deleted."),
	}
	m.maxNodes.Set(float64(l.MaxNodesTotal))
	m.cpuLimits.WithLabelValues("minimum").Set(float64(l.MinCores))
	m.cpuLimits.WithLabelValues("maximum").Set(float64(l.MaxCores))
	m.memLimits.WithLabelValues("minimum").Set(float64(l.MinMemoryGiB << 30))
	m.memLimits.WithLabelValues("maximum").Set(float64(l.MaxMemoryGiB << 30))
	return m
}

func (m *clusterMetrics) register(reg prometheus.Registerer) error {
	return promreg.Register(reg, "node autoscaler cluster", m.maxNodes, m.cpuLimits, m.memLimits, m.cpuCurrent, m.memCurrent)
}

// observe sums the capacity of the nodes that are not being deleted.
func (m *clusterMetrics) observe(nodes []*corev1.Node) {
	var milliCPU, memory int64
	for _, n := range nodes {
		if clusterstate.HasTaint(n, clusterstate.ToBeDeletedTaint) || clusterstate.HasTaint(n, clusterstate.BeingDeletedTaint) {
			continue
		}
		milliCPU += n.Status.Capacity.Cpu().MilliValue()
		memory += n.Status.Capacity.Memory().Value()
	}
	m.cpuCurrent.Set(float64(milliCPU) / 1000)
	m.memCurrent.Set(float64(memory))
}

// unreachableFamilies are upstream families whose condition kscale never
// meets; they are registered as upstream registers them, so they show as
// upstream shows them there: the plain gauges at 0, the vectors without
// series (docs/node-autoscaler-live.md says why for each).
func unreachableFamilies() []prometheus.Collector {
	gauge := func(name, help string) prometheus.Gauge {
		return prometheus.NewGauge(prometheus.GaugeOpts{Namespace: ns, Name: name, Help: help})
	}
	return []prometheus.Collector{
		// GCE only: MIGs whose instance listings disagree.
		gauge("inconsistent_instances_migs_count", "GCE managed instance groups whose instance counts disagree (no such provider in kscale: 0)."),
		// --max-node-skip-eval-time-tracker-enabled, which kscale takes only
		// at its default (false), as upstream with the flag off.
		gauge("max_node_skip_eval_duration_seconds", "Longest time a node was skipped by the scale-down evaluation (--max-node-skip-eval-time-tracker-enabled; off: 0)."),
		// Dynamic resource allocation: kscale's templates carry no
		// ResourceSlices, so there is nothing to compare.
		prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Name: "dra_node_template_resources_mismatch",
			Help: "DRA resource mismatches between ready nodes and their templates (kscale has no DRA templates: no series)."}, []string{"driver", "mismatch_type"}),
	}
}
