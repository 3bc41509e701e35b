package recommender

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"

	"github.com/kscale/kscale/internal/promreg"
)

// upstreamMetrics are upstream VPA's vpa_recommender_* families
// (pkg/utils/metrics/recommender), beside kscale's own.
type upstreamMetrics struct {
	execution  *prometheus.HistogramVec
	latency    prometheus.Histogram
	aggregates prometheus.Gauge
	objects    *prometheus.GaugeVec
	responses  *prometheus.CounterVec
}

// metricsClientName is upstream's client_name of the metrics.k8s.io client.
const metricsClientName = "default-metrics-client"

// executionBuckets are upstream's execution latency buckets (0.01s to 300s).
var executionBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 2, 5, 10, 20, 30, 60, 120, 300}

// upstreamSteps maps kscale's loop steps onto upstream's step label values.
var upstreamSteps = map[string]string{
	"load_vpas": "LoadVPAs", "load_pods": "LoadPods", "load_metrics": "LoadMetrics",
	"update_vpas": "UpdateVPAs", "checkpoints": "MaintainCheckpoints",
	"GarbageCollect": "GarbageCollect", "total": "total",
}

func newUpstreamMetrics(reg prometheus.Registerer) (*upstreamMetrics, error) {
	m := &upstreamMetrics{
		execution: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: "vpa", Subsystem: "recommender",
			Name: "execution_latency_seconds", Help: "Time spent in various parts of VPA Recommender main loop.",
			Buckets: executionBuckets}, []string{"step"}),
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: "vpa", Subsystem: "recommender",
			Name: "recommendation_latency_seconds", Help: "Time elapsed from creating a valid VPA configuration to the first recommendation.",
			Buckets: []float64{1, 2, 5, 7.5, 10, 20, 30, 40, 50, 60, 90, 120, 150, 180, 240, 300, 600, 900, 1800}}),
		aggregates: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: "vpa", Subsystem: "recommender",
			Name: "aggregate_container_states_count", Help: "Number of aggregate container states being tracked by the recommender"}),
		objects: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: "vpa", Subsystem: "recommender",
			Name: "vpa_objects_count", Help: "Number of VPA objects present in the cluster."},
			[]string{"update_mode", "has_recommendation", "api", "matches_pods", "unsupported_config"}),
		responses: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "vpa", Subsystem: "recommender",
			Name: "metric_server_responses", Help: "Count of responses to queries to metrics server"}, []string{"is_error", "client_name"}),
	}
	if err := promreg.Register(reg, "recommender (upstream families)", m.execution, m.latency, m.aggregates, m.objects, m.responses); err != nil {
		return nil, err
	}
	return m, nil
}

// step observes one loop step's duration under upstream's step name.
func (m *upstreamMetrics) step(name string, d time.Duration) {
	if up, ok := upstreamSteps[name]; ok {
		m.execution.WithLabelValues(up).Observe(d.Seconds())
	}
}

// metricsServerResponse counts one metrics.k8s.io list and whether it
// failed.
func (m *upstreamMetrics) metricsServerResponse(err error) {
	m.responses.WithLabelValues(strconv.FormatBool(err != nil), metricsClientName).Inc()
}

// vpaObject is one VPA's vpa_objects_count labels.
type vpaObject struct {
	updateMode                                      string
	hasRecommendation, matchesPods, unsupportedConf bool
}

// objectOf returns the VPA's labels after this loop's recommendation.
func objectOf(vpa *vpav1.VerticalPodAutoscaler, o outcome, has bool) vpaObject {
	mode := string(vpav1.UpdateModeRecreate)
	if p := vpa.Spec.UpdatePolicy; p != nil && p.UpdateMode != nil {
		mode = string(*p.UpdateMode)
	}
	return vpaObject{updateMode: mode, hasRecommendation: has, matchesPods: o.noRecReason != ReasonNoPodsMatched,
		unsupportedConf: o.configReason != ""}
}

// setObjects sets vpa_objects_count to this loop's counts; as upstream,
// every combination of update mode, API version and flags has a series (0
// when no VPA has it). kscale serves v1 only.
func (m *upstreamMetrics) setObjects(counts map[vpaObject]int) {
	bools := []bool{false, true}
	for mode := range vpav1.GetUpdateModes() {
		for _, has := range bools {
			for _, api := range []string{"v1beta1", "v1beta2", "v1"} {
				for _, matches := range bools {
					for _, unsupported := range bools {
						n := 0
						if api == "v1" {
							n = counts[vpaObject{updateMode: string(mode), hasRecommendation: has, matchesPods: matches, unsupportedConf: unsupported}]
						}
						m.objects.WithLabelValues(string(mode), strconv.FormatBool(has), api,
							strconv.FormatBool(matches), strconv.FormatBool(unsupported)).Set(float64(n))
					}
				}
			}
		}
	}
}
