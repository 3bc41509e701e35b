package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// upstreamFamily is a metric family an upstream component exports: its
// type and label names (shared/specs/compatibility.md §3).
type upstreamFamily struct {
	typ    dto.MetricType
	labels []string
}

var (
	gauge     = dto.MetricType_GAUGE
	counter   = dto.MetricType_COUNTER
	histogram = dto.MetricType_HISTOGRAM
	summary   = dto.MetricType_SUMMARY
)

// upstreamCAFamilies are the Cluster Autoscaler's cluster_autoscaler_*
// families (spec §3.1), without the prefix.
var upstreamCAFamilies = map[string]upstreamFamily{
	"cluster_safe_to_autoscale":            {gauge, nil},
	"nodes_count":                          {gauge, []string{"state"}},
	"node_groups_count":                    {gauge, []string{"node_group_type"}},
	"unschedulable_pods_count":             {gauge, []string{"type"}},
	"skipped_pods_count":                   {gauge, []string{"requestor"}},
	"max_nodes_count":                      {gauge, nil},
	"cluster_cpu_current_cores":            {gauge, nil},
	"cpu_limits_cores":                     {gauge, []string{"direction"}},
	"cluster_memory_current_bytes":         {gauge, nil},
	"memory_limits_bytes":                  {gauge, []string{"direction"}},
	"node_group_min_count":                 {gauge, []string{"node_group"}},
	"node_group_max_count":                 {gauge, []string{"node_group"}},
	"node_group_target_count":              {gauge, []string{"node_group"}},
	"node_group_healthiness":               {gauge, []string{"node_group"}},
	"node_group_backoff_status":            {gauge, []string{"node_group", "reason"}},
	"last_activity":                        {gauge, []string{"activity"}},
	"function_duration_seconds":            {histogram, []string{"function"}},
	"function_duration_quantile_seconds":   {summary, []string{"function"}},
	"pending_node_deletions":               {gauge, nil},
	"errors_total":                         {counter, []string{"type"}},
	"scaled_up_nodes_total":                {counter, []string{"gpu_resource_name", "gpu_name", "dra_drivers"}},
	"scaled_up_gpu_nodes_total":            {counter, []string{"gpu_resource_name", "gpu_name"}},
	"failed_scale_ups_total":               {counter, []string{"reason", "gpu_resource_name", "gpu_name", "dra_drivers"}},
	"failed_node_creations_total":          {counter, []string{"reason"}},
	"failed_gpu_scale_ups_total":           {counter, []string{"reason", "gpu_resource_name", "gpu_name"}},
	"scaled_down_nodes_total":              {counter, []string{"reason", "gpu_resource_name", "gpu_name", "dra_drivers"}},
	"scaled_down_gpu_nodes_total":          {counter, []string{"reason", "gpu_resource_name", "gpu_name"}},
	"evicted_pods_total":                   {counter, []string{"eviction_result"}},
	"unneeded_nodes_count":                 {gauge, nil},
	"unremovable_nodes_count":              {gauge, []string{"reason"}},
	"scale_down_in_cooldown":               {gauge, nil},
	"old_unregistered_nodes_removed_count": {counter, nil},
	"overflowing_controllers_count":        {gauge, nil},
	"skipped_scale_events_count":           {counter, []string{"direction", "reason"}},
	"created_node_groups_total":            {counter, []string{"group_type"}},
	"deleted_node_groups_total":            {counter, []string{"group_type"}},
	"node_taints_count":                    {gauge, []string{"type"}},
	"inconsistent_instances_migs_count":    {gauge, nil},
	"binpacking_heterogeneity":             {histogram, []string{"instance_type", "cpu_count", "namespace_count"}},
	"max_node_skip_eval_duration_seconds":  {gauge, nil},
	"node_removal_latency_seconds":         {histogram, []string{"deleted", "delay_reason"}},
	"dra_node_template_resources_mismatch": {gauge, []string{"driver", "mismatch_type"}},
}

// caNotYetExported are the upstream families the end-to-end test does not
// scrape after its scale-down (before it, node_removal_latency_seconds has
// no series yet either), each because it has no series there, exactly as upstream's has
// none in that situation (docs/node-autoscaler-live.md): vectors set only
// under a condition the test does not meet. Unit tests in
// internal/nodeautoscaler/... assert their values after loops that meet it.
var caNotYetExported = []string{
	// Only for nodes with GPUs (the test's kwok groups have none).
	"scaled_up_gpu_nodes_total", "failed_gpu_scale_ups_total", "scaled_down_gpu_nodes_total",
	// Node autoprovisioning, which kscale (like upstream outside GKE) lacks.
	"created_node_groups_total", "deleted_node_groups_total",
	// Only for DRA node templates, which kscale does not build.
	"dra_node_template_resources_mismatch",
	// Only while some node has a taint (the scrape may see none).
	"node_taints_count",
}

// upstreamVPARecommenderFamilies are upstream VPA's vpa_recommender_*
// families (spec §3.3), without the prefix.
var upstreamVPARecommenderFamilies = map[string]upstreamFamily{
	"vpa_objects_count":                               {gauge, []string{"update_mode", "has_recommendation", "api", "matches_pods", "unsupported_config"}},
	"recommendation_latency_seconds":                  {histogram, nil},
	"aggregate_container_states_count":                {gauge, nil},
	"metric_server_responses":                         {counter, []string{"is_error", "client_name"}},
	"prometheus_client_api_requests_count":            {counter, []string{"code", "method"}},
	"prometheus_client_api_requests_duration_seconds": {histogram, []string{"code", "method"}},
	"execution_latency_seconds":                       {histogram, []string{"step"}},
}

// vpaRecommenderNotYetExported are the upstream recommender families the
// test does not scrape: the Prometheus client's, which have series only
// with --storage=prometheus (input's history test asserts them).
var vpaRecommenderNotYetExported = []string{"prometheus_client_api_requests_count",
	"prometheus_client_api_requests_duration_seconds"}

// upstreamVPAAdmissionFamilies are upstream VPA's
// vpa_admission_controller_* families (spec §3.3), without the prefix.
var upstreamVPAAdmissionFamilies = map[string]upstreamFamily{
	"admission_pods_total":      {counter, []string{"applied"}},
	"admission_latency_seconds": {histogram, []string{"status", "resource"}},
	"execution_latency_seconds": {histogram, []string{"step"}},
}

// upstreamVPAUpdaterFamilies are upstream VPA 1.8.1's vpa_updater_*
// families (spec §3.3), without the prefix.
var upstreamVPAUpdaterFamilies = map[string]upstreamFamily{
	"controlled_pods_total":                     {gauge, []string{"vpa_size_log2", "update_mode"}},
	"evictable_pods_total":                      {gauge, []string{"vpa_size_log2", "update_mode"}},
	"vpas_with_evictable_pods_total":            {gauge, []string{"vpa_size_log2", "update_mode"}},
	"vpas_with_evicted_pods_total":              {gauge, []string{"vpa_size_log2", "update_mode"}},
	"evicted_pods_total":                        {counter, []string{"vpa_size_log2", "update_mode", "vpa_name", "vpa_namespace"}},
	"failed_eviction_attempts_total":            {counter, []string{"vpa_size_log2", "update_mode", "reason", "vpa_name", "vpa_namespace"}},
	"in_place_updatable_pods_total":             {gauge, []string{"vpa_size_log2"}},
	"vpas_with_in_place_updatable_pods_total":   {gauge, []string{"vpa_size_log2"}},
	"vpas_with_in_place_updated_pods_total":     {gauge, []string{"vpa_size_log2"}},
	"in_place_updated_pods_total":               {counter, []string{"vpa_size_log2", "vpa_name", "vpa_namespace"}},
	"failed_in_place_update_attempts_total":     {counter, []string{"vpa_size_log2", "reason", "vpa_name", "vpa_namespace"}},
	"in_place_infeasible_skip_pods_total":       {counter, []string{"vpa_size_log2", "vpa_name", "vpa_namespace"}},
	"admission_controller_status_invalid_total": {counter, []string{"reason"}},
	"execution_latency_seconds":                 {histogram, []string{"step"}},
}

// vpaUpdaterNotYetExported are the upstream updater families the
// end-to-end test does not scrape, each because it has no series at that
// loop, exactly as upstream's would not (the updater's tests against the
// control plane assert their values): vpas_with_evictable_pods_total and
// vpas_with_evicted_pods_total exist only for a loop with an evictable or
// evicted pod (the scraped loop has neither: the budget is spent), and the
// failure counters only after a failure (none in the test).
var vpaUpdaterNotYetExported = []string{"vpas_with_evictable_pods_total", "vpas_with_evicted_pods_total", "failed_eviction_attempts_total",
	"failed_in_place_update_attempts_total", "in_place_infeasible_skip_pods_total", "admission_controller_status_invalid_total"}

// kscaleCAFamilies are kscale's (Zalando fork) additions.
var kscaleCAFamilies = map[string]upstreamFamily{
	"node_group_in_backoff":          {gauge, []string{"node_group"}},
	"failed_scale_down_total":        {counter, []string{"kind", "reason"}},
	"node_deletion_duration_seconds": {histogram, []string{"kind"}},
}

// metricConformance parses a /metrics body and compares every family with
// prefix to upstream's (or kscale's own) name, type and label names; every
// upstream family not listed in notYet must be present. It returns the
// differences.
func metricConformance(body, prefix string, upstream, extra map[string]upstreamFamily, notYet []string) ([]string, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	var problems []string
	for name, mf := range families {
		short, ok := strings.CutPrefix(name, prefix)
		if !ok {
			continue
		}
		want, ok := upstream[short]
		if !ok {
			if want, ok = extra[short]; !ok {
				problems = append(problems, name+": neither upstream's nor a known kscale family")
				continue
			}
		}
		if mf.GetType() != want.typ {
			problems = append(problems, fmt.Sprintf("%s: type %v, want %v", name, mf.GetType(), want.typ))
		}
		wantLabels := slices.Sorted(slices.Values(want.labels))
		for _, m := range mf.GetMetric() {
			var got []string
			for _, l := range m.GetLabel() {
				got = append(got, l.GetName())
			}
			if slices.Sort(got); !slices.Equal(got, wantLabels) {
				problems = append(problems, fmt.Sprintf("%s: labels %v, want %v", name, got, wantLabels))
				break
			}
		}
	}
	for short := range upstream {
		if _, ok := families[prefix+short]; !ok && !slices.Contains(notYet, short) {
			problems = append(problems, prefix+short+": upstream family missing")
		}
	}
	slices.Sort(problems)
	return problems, nil
}

// checkMetricConformance fails t for every difference metricConformance
// finds.
func checkMetricConformance(t *testing.T, body, prefix string, upstream, extra map[string]upstreamFamily, notYet []string) {
	t.Helper()
	problems, err := metricConformance(body, prefix, upstream, extra, notYet)
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestMetricConformanceFindsDifferences makes sure the check can fail: a
// wrong label, a wrong type, an unknown family and a missing one.
func TestMetricConformanceFindsDifferences(t *testing.T) {
	body := "# TYPE x_a counter\nx_a{kind=\"empty\"} 1\n# TYPE x_b counter\nx_b 1\n# TYPE x_c gauge\nx_c 1\n"
	upstream := map[string]upstreamFamily{"a": {counter, []string{"reason"}}, "b": {gauge, nil}, "d": {gauge, nil}}
	got, err := metricConformance(body, "x_", upstream, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"x_a: labels [kind], want [reason]", "x_b: type COUNTER, want GAUGE",
		"x_c: neither upstream's nor a known kscale family", "x_d: upstream family missing"}
	if !slices.Equal(got, want) {
		t.Errorf("problems %q, want %q", got, want)
	}
}
