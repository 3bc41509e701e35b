package live

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kscale/kscale/internal/nodeautoscaler"
	"github.com/kscale/kscale/internal/nodeautoscaler/clusterstate"
	"github.com/kscale/kscale/internal/promreg"
)

// runnerMetrics are the loop-level series upstream exports, on an injected
// registerer. The per-group target size, in-backoff gauge and failed
// scale-ups come from the Autoscaler itself.
type runnerMetrics struct {
	lastActivity  *prometheus.GaugeVec
	duration      *prometheus.HistogramVec
	quantiles     *prometheus.SummaryVec
	unreachable   []prometheus.Collector
	errors        *prometheus.CounterVec
	nodes         *prometheus.GaugeVec
	unschedulable *prometheus.GaugeVec
	cluster       *clusterMetrics
	groups        *prometheus.GaugeVec
	safe          prometheus.Gauge
	minCount      *prometheus.GaugeVec
	maxCount      *prometheus.GaugeVec
	backoffStatus *prometheus.GaugeVec
	healthiness   *prometheus.GaugeVec
}

const ns = "cluster_autoscaler"

// newRunnerMetrics registers the loop-level series on reg, the
// per-node-group gauges only with perGroup (--emit-per-nodegroup-metrics).
func newRunnerMetrics(reg prometheus.Registerer, perGroup bool, limits ClusterLimits) (*runnerMetrics, error) {
	g := func(name, help string, labels ...string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Name: name, Help: help}, labels)
	}
	m := &runnerMetrics{
		lastActivity: g("last_activity", "Last time certain part of the autoscaler logic executed (unix seconds).", "activity"),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: ns, Name: "function_duration_seconds",
			Help: "Time taken by parts of the autoscaler loop.", Buckets: prometheus.ExponentialBuckets(0.01, 1.5, 30)}, []string{"function"}),
		quantiles: prometheus.NewSummaryVec(prometheus.SummaryOpts{Namespace: ns, Name: "function_duration_quantile_seconds",
			Help: "Quantiles of the time taken by parts of the autoscaler loop.", MaxAge: time.Hour}, []string{"function"}),
		unreachable: unreachableFamilies(),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "errors_total",
			Help: "Failed autoscaler loops by error type."}, []string{"type"}),
		nodes:         g("nodes_count", "Number of nodes in the cluster by state.", "state"),
		unschedulable: g("unschedulable_pods_count", "Number of pending pods by type: unschedulable (the scheduler gave up), scheduler_unprocessed (not tried yet).", "type"),
		cluster:       newClusterMetrics(limits),
		groups:        g("node_groups_count", "Number of node groups managed by the autoscaler.", "node_group_type"),
		safe:          prometheus.NewGauge(prometheus.GaugeOpts{Namespace: ns, Name: "cluster_safe_to_autoscale", Help: "1 when the last loop could read the cluster and found it within the unready-node limits, else 0."}),
		minCount:      g("node_group_min_count", "Minimum size of the node group.", "node_group"),
		maxCount:      g("node_group_max_count", "Maximum size of the node group.", "node_group"),
		backoffStatus: g("node_group_backoff_status", "1 for the reason a node group is backed off, else absent.", "node_group", "reason"),
		healthiness:   g("node_group_healthiness", "1 when the node group is healthy, else 0.", "node_group"),
	}
	if err := promreg.Register(reg, "node autoscaler loop", m.lastActivity, m.duration, m.quantiles, m.errors, m.nodes, m.unschedulable, m.groups, m.safe); err != nil {
		return nil, err
	}
	if err := promreg.Register(reg, "node autoscaler (upstream-only families)", m.unreachable...); err != nil {
		return nil, err
	}
	if err := m.cluster.register(reg); err != nil {
		return nil, err
	}
	// Upstream's InitMetrics creates every error type at zero.
	for _, t := range errorTypes {
		m.errors.WithLabelValues(t)
	}
	if perGroup {
		if err := promreg.Register(reg, "node autoscaler loop", m.minCount, m.maxCount, m.backoffStatus, m.healthiness); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// clusterHealthy asks a loop that knows (the Autoscaler) whether the
// cluster was within the unready limits; others count as healthy.
func clusterHealthy(loop Loop) bool {
	h, ok := loop.(interface{ ClusterHealthy() bool })
	return !ok || h.ClusterHealthy()
}

// loopActivity asks a loop that knows (the Autoscaler) what its parts did.
func loopActivity(loop Loop) (nodeautoscaler.LoopActivity, bool) {
	a, ok := loop.(interface {
		Activity() nodeautoscaler.LoopActivity
	})
	if !ok {
		return nodeautoscaler.LoopActivity{}, false
	}
	return a.Activity(), true
}

// observeFunction records one part's duration in the histogram and the
// summary.
func (m *runnerMetrics) observeFunction(function string, d time.Duration) {
	m.duration.WithLabelValues(function).Observe(d.Seconds())
	m.quantiles.WithLabelValues(function).Observe(d.Seconds())
}

// observeActivity records the parts of the loop: when each activity
// began and how long each timed part took.
func (m *runnerMetrics) observeActivity(a nodeautoscaler.LoopActivity) {
	for activity, at := range a.Started {
		m.lastActivity.WithLabelValues(activity).Set(float64(at.Unix()))
	}
	for _, t := range a.Timings {
		m.observeFunction(t.Function, t.Duration)
	}
}

// observeLoop records one loop's timing and result; the cluster is safe
// to autoscale when the loop succeeded and found it healthy.
func (m *runnerMetrics) observeLoop(start time.Time, took time.Duration, err error, healthy bool) {
	m.lastActivity.WithLabelValues("main").Set(float64(start.Unix()))
	m.observeFunction("main", took)
	if err == nil {
		m.lastActivity.WithLabelValues("mainSuccessful").Set(float64(start.Unix()))
	}
	if err != nil {
		m.errors.WithLabelValues(errorType(err)).Inc()
		m.safe.Set(0)
		return
	}
	if !healthy {
		m.safe.Set(0)
		return
	}
	m.safe.Set(1)
}

// observeState records the view and the groups after a loop.
func (m *runnerMetrics) observeState(v *nodeautoscaler.View, loop Loop) {
	groups := loop.State()
	unschedulable, unprocessed := loop.PendingCounts(v.Pods)
	m.unschedulable.WithLabelValues("unschedulable").Set(float64(unschedulable))
	m.unschedulable.WithLabelValues("scheduler_unprocessed").Set(float64(unprocessed))
	m.cluster.observe(v.Nodes)
	var total clusterstate.Readiness
	m.minCount.Reset()
	m.maxCount.Reset()
	m.backoffStatus.Reset()
	m.healthiness.Reset()
	for _, g := range groups {
		id := g.Group.ID
		total = addReadiness(total, g.Readiness)
		m.minCount.WithLabelValues(id).Set(float64(g.Group.MinSize))
		m.maxCount.WithLabelValues(id).Set(float64(g.Group.MaxSize))
		if g.Backoff.BackedOff {
			m.backoffStatus.WithLabelValues(id, g.Backoff.Reason.Code).Set(1)
		}
		healthy := 0.0
		if healthOf(g.Readiness) == HealthHealthy {
			healthy = 1
		}
		m.healthiness.WithLabelValues(id).Set(healthy)
	}
	m.groups.WithLabelValues("autoscaled").Set(float64(len(groups)))
	// kscale creates no node groups (no autoprovisioning).
	m.groups.WithLabelValues("autoprovisioned").Set(0)
	m.nodes.WithLabelValues("ready").Set(float64(total.Ready))
	m.nodes.WithLabelValues("unready").Set(float64(total.Unready))
	m.nodes.WithLabelValues("notStarted").Set(float64(total.NotStarted + total.LongNotStarted))
	m.nodes.WithLabelValues("longUnregistered").Set(float64(total.LongUnregistered))
	m.nodes.WithLabelValues("unregistered").Set(float64(total.Unregistered))
}

// errorType classifies a failed loop like upstream's errors_total types.
func errorType(err error) string {
	if IsNotSynced(err) {
		return "internalError"
	}
	return "apiCallError"
}
