package nodeautoscaler

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kscale/kscale/internal/nodeautoscaler/clusterstate"
	"github.com/kscale/kscale/internal/nodeautoscaler/scaleup"
	"github.com/kscale/kscale/internal/nodeautoscaler/template"
	"github.com/kscale/kscale/internal/promreg"
)

// metrics are the loop's Prometheus series.
type metrics struct {
	inBackoff      *prometheus.GaugeVec
	targetSize     *prometheus.GaugeVec
	mismatch       *prometheus.GaugeVec
	oldRemoved     prometheus.Counter
	removalLatency *prometheus.HistogramVec
	scaleUps       *scaleUpMetrics
	loop           *loopMetrics
	known          map[string]bool
	gpuOfGroup     map[string][2]string
}

// Upstream's failed_scale_ups_total reasons besides the cloud's codes.
const (
	reasonTimeout            = "timeout"
	reasonCloudProviderError = "cloudProviderError"
	reasonAPICallError       = "apiCallError"
)

const ns = "cluster_autoscaler"

// newMetrics registers the loop's series on reg; node_group_target_count
// only with perGroup (--emit-per-nodegroup-metrics), as upstream.
func newMetrics(reg prometheus.Registerer, perGroup bool) (*metrics, error) {
	m := &metrics{
		inBackoff: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Name: "node_group_in_backoff",
			Help: "1 when the node group is backed off after a failed scale-up, else 0."}, []string{"node_group"}),
		targetSize: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Name: "node_group_target_count",
			Help: "Target size of the node group."}, []string{"node_group"}),
		oldRemoved: prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Name: "old_unregistered_nodes_removed_count",
			Help: "Instances removed because they never registered as nodes within --max-node-provision-time."}),
		mismatch: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: "kscale", Name: "node_group_template_mismatch",
			Help: "1 while the node group's real nodes differ from its template or it is not scaled up for some pods that do not fit them, else 0."}, []string{"node_group"}),
		removalLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: ns, Name: "node_removal_latency_seconds",
			Help: "Time an unneeded node waited beyond --scale-down-unneeded-time (or --scale-down-unready-time) until its deletion began (deleted=true) " +
				"or it was needed again (deleted=false), by the last reason that kept it (none if none); only with --node-removal-latency-tracking-enabled.",
			Buckets: prometheus.ExponentialBuckets(1, 1.5, 19)}, []string{"deleted", "delay_reason"}),
		scaleUps:   newScaleUpMetrics(),
		loop:       newLoopMetrics(),
		known:      map[string]bool{},
		gpuOfGroup: map[string][2]string{},
	}
	if err := promreg.Register(reg, "node autoscaler", m.inBackoff, m.oldRemoved, m.mismatch, m.removalLatency); err != nil {
		return nil, err
	}
	if err := m.scaleUps.register(reg); err != nil {
		return nil, err
	}
	if err := m.loop.register(reg); err != nil {
		return nil, err
	}
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
			delete(m.gpuOfGroup, id)
		}
	}
	m.known = seen
}

// rememberTemplates keeps each group's GPU resource and type from this
// loop's templates, for the metrics of its later scale-ups and failures.
func (m *metrics) rememberTemplates(groups []scaleup.Group) {
	for _, g := range groups {
		if g.Template != nil {
			r, t := template.GPUOf(g.Template.Node)
			m.gpuOfGroup[g.ID] = [2]string{r, t}
		}
	}
}

// failedScaleUp counts a failed scale-up of nodes nodes of group under
// upstream's reason: a failed IncreaseSize (kscale's APIError) is
// cloudProviderError.
func (m *metrics) failedScaleUp(group, code string, nodes int) {
	if code == "APIError" {
		code = reasonCloudProviderError
	}
	gpu := m.gpuOfGroup[group]
	m.scaleUps.failed(code, gpu[0], gpu[1], nodes)
}

// observe counts the nodes of scale-ups and of removed never-registered
// instances.
func (m *metrics) observe(e Event) {
	switch {
	case e.Type == EventScaleUp && e.Delta > 0:
		gpu := m.gpuOfGroup[e.Group]
		m.scaleUps.scaledUp(gpu[0], gpu[1], e.Delta)
	case e.Type == EventDeleteNodes && e.Reason == DeleteReasonLongUnregistered:
		m.oldRemoved.Add(float64(-e.Delta))
	}
}

// observePlan records what a scale-up evaluation saw: the groups skipped
// for the cluster's resource limits and every estimate's heterogeneity.
func (m *metrics) observePlan(plan scaleup.Plan) {
	for _, s := range plan.LimitSkips {
		for _, r := range s.Resources {
			m.scaleUps.skippedUp(r)
		}
	}
	for _, b := range plan.Binpacking {
		m.scaleUps.binpacking.WithLabelValues(b.InstanceType, b.CPU, namespaceBucket(b.Namespaces)).Observe(float64(b.EquivalenceGroups))
	}
}

// namespaceBucket quantizes a namespace count as upstream does, to bound
// the label's values: 0..5, "6-10", "11+".
func namespaceBucket(n int) string {
	switch {
	case n <= 5:
		return strconv.Itoa(n)
	case n <= 10:
		return "6-10"
	default:
		return "11+"
	}
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
