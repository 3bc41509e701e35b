package input

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	promapi "github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/client_golang/prometheus"
	prommodel "github.com/prometheus/common/model"
	"k8s.io/utils/clock"

	"github.com/kscale/kscale/internal/vpa/model"
)

// HistoryConfig configures the Prometheus history source (--storage=prometheus).
type HistoryConfig struct {
	// Address is the Prometheus base URL (--prometheus-address).
	Address string
	// Length is how far back to read (--history-length, 8d).
	Length time.Duration
	// Resolution is the query step and CPU rate window (--history-resolution, 1h).
	Resolution time.Duration
	// QueryTimeout bounds each query (--prometheus-query-timeout, 5m).
	QueryTimeout time.Duration
	// CadvisorJob is the job of the container metrics (--prometheus-cadvisor-job-name).
	CadvisorJob string
	// PodsJob selects the series carrying pod labels (--metric-for-pod-labels job).
	PodsJob string
	// PodLabelPrefix prefixes pod labels on those series (--pod-label-prefix, pod_label_).
	PodLabelPrefix string
	// PodNamespaceLabel and PodNameLabel name the pod on the pods-job series.
	PodNamespaceLabel string
	// PodNameLabel names the pod on the pods-job series (--pod-name-label).
	PodNameLabel string
	// ContainerNamespaceLabel, ContainerPodNameLabel and ContainerNameLabel
	// name a container on the cadvisor series.
	ContainerNamespaceLabel string
	// ContainerPodNameLabel is the pod label on cadvisor series (--container-pod-name-label).
	ContainerPodNameLabel string
	// ContainerNameLabel is the container label on cadvisor series (--container-name-label).
	ContainerNameLabel string
}

// Default fills unset fields with the upstream defaults.
func (c *HistoryConfig) Default() {
	def := func(p *string, v string) {
		if *p == "" {
			*p = v
		}
	}
	if c.Length == 0 {
		c.Length = 8 * 24 * time.Hour
	}
	if c.Resolution == 0 {
		c.Resolution = time.Hour
	}
	if c.QueryTimeout == 0 {
		c.QueryTimeout = 5 * time.Minute
	}
	def(&c.CadvisorJob, "kubernetes-cadvisor")
	def(&c.PodsJob, "kubernetes-pods")
	def(&c.PodLabelPrefix, "pod_label_")
	def(&c.PodNamespaceLabel, "kubernetes_namespace")
	def(&c.PodNameLabel, "kubernetes_pod_name")
	def(&c.ContainerNamespaceLabel, "namespace")
	def(&c.ContainerPodNameLabel, "pod")
	def(&c.ContainerNameLabel, "container")
}

// Validate reports the first invalid field.
func (c *HistoryConfig) Validate() error {
	switch {
	case c.Address == "":
		return errors.New("prometheus-address: required with --storage=prometheus")
	case c.Length <= 0 || c.Resolution <= 0 || c.QueryTimeout <= 0:
		return errors.New("history-length, history-resolution and prometheus-query-timeout: must be positive")
	}
	return nil
}

// PrometheusHistory reads usage history from a Prometheus HTTP API.
type PrometheusHistory struct {
	cfg   HistoryConfig
	api   promv1.API
	clock clock.PassiveClock
}

// NewPrometheusHistory returns a history source; cfg must be defaulted and
// valid. Its requests are counted and timed on reg (nil: not registered)
// as upstream's vpa_recommender_prometheus_client_api_requests_*.
func NewPrometheusHistory(cfg HistoryConfig, clk clock.PassiveClock, reg prometheus.Registerer) (*PrometheusHistory, error) {
	rt, err := instrumentedTransport(reg)
	if err != nil {
		return nil, err
	}
	c, err := promapi.NewClient(promapi.Config{Address: cfg.Address, RoundTripper: rt})
	if err != nil {
		return nil, fmt.Errorf("creating Prometheus client for %s: %w", cfg.Address, err)
	}
	return &PrometheusHistory{cfg: cfg, api: promv1.NewAPI(c), clock: clk}, nil
}

// Load returns the pods seen in the history (with their labels) and their
// CPU and memory samples, in time order.
func (h *PrometheusHistory) Load(ctx context.Context) ([]PodInfo, []ContainerUsage, error) {
	end := h.clock.Now()
	r := promv1.Range{Start: end.Add(-h.cfg.Length), End: end, Step: h.cfg.Resolution}
	sel := fmt.Sprintf(`{job=%q, %s!="", %s!="", %s!="POD"}`, h.cfg.CadvisorJob, h.cfg.ContainerPodNameLabel,
		h.cfg.ContainerNameLabel, h.cfg.ContainerNameLabel)
	cpu, err := h.query(ctx, fmt.Sprintf("rate(container_cpu_usage_seconds_total%s[%s])", sel, prommodel.Duration(h.cfg.Resolution)), r)
	if err != nil {
		return nil, nil, err
	}
	mem, err := h.query(ctx, "container_memory_working_set_bytes"+sel, r)
	if err != nil {
		return nil, nil, err
	}
	up, err := h.query(ctx, fmt.Sprintf(`up{job=%q}`, h.cfg.PodsJob), r)
	if err != nil {
		return nil, nil, err
	}
	return h.convert(cpu, mem, up)
}

// query runs one range query and returns its matrix.
func (h *PrometheusHistory) query(ctx context.Context, q string, r promv1.Range) (prommodel.Matrix, error) {
	ctx, cancel := context.WithTimeout(ctx, h.cfg.QueryTimeout)
	defer cancel()
	v, _, _, err := h.api.QueryRange(ctx, q, r)
	if err != nil {
		return nil, fmt.Errorf("querying Prometheus %q: %w", q, err)
	}
	m, ok := v.(prommodel.Matrix)
	if !ok {
		return nil, fmt.Errorf("querying Prometheus %q: got %s, want a matrix", q, v.Type())
	}
	return m, nil
}

// convert turns the three matrices into pods and time-ordered samples.
func (h *PrometheusHistory) convert(cpu, mem, up prommodel.Matrix) ([]PodInfo, []ContainerUsage, error) {
	pods := map[model.PodID]*PodInfo{}
	podOf := func(ns, name string) *PodInfo {
		id := model.PodID{Namespace: ns, Name: name}
		if p, ok := pods[id]; ok {
			return p
		}
		p := &PodInfo{ID: id, Labels: map[string]string{}}
		pods[id] = p
		return p
	}
	var usage []ContainerUsage
	for _, pair := range []struct {
		m   prommodel.Matrix
		cpu bool
	}{{cpu, true}, {mem, false}} {
		for _, s := range pair.m {
			ns, pod := string(s.Metric[prommodel.LabelName(h.cfg.ContainerNamespaceLabel)]), string(s.Metric[prommodel.LabelName(h.cfg.ContainerPodNameLabel)])
			container := string(s.Metric[prommodel.LabelName(h.cfg.ContainerNameLabel)])
			if ns == "" || pod == "" || container == "" {
				continue
			}
			p := podOf(ns, pod)
			if !slices.Contains(p.Containers, container) {
				p.Containers = append(p.Containers, container)
			}
			for _, v := range s.Values {
				u := ContainerUsage{Pod: p.ID, Container: container, Time: v.Timestamp.Time(), CPUCores: -1, MemoryBytes: -1}
				if pair.cpu {
					u.CPUCores = float64(v.Value)
				} else {
					u.MemoryBytes = float64(v.Value)
				}
				usage = append(usage, u)
			}
		}
	}
	for _, s := range up {
		ns, name := string(s.Metric[prommodel.LabelName(h.cfg.PodNamespaceLabel)]), string(s.Metric[prommodel.LabelName(h.cfg.PodNameLabel)])
		p, ok := pods[model.PodID{Namespace: ns, Name: name}]
		if !ok {
			continue
		}
		for k, v := range s.Metric {
			if key, ok := strings.CutPrefix(string(k), h.cfg.PodLabelPrefix); ok {
				p.Labels[key] = string(v)
			}
		}
	}
	slices.SortStableFunc(usage, func(a, b ContainerUsage) int { return a.Time.Compare(b.Time) })
	out := make([]PodInfo, 0, len(pods))
	for _, p := range pods {
		out = append(out, *p)
	}
	slices.SortFunc(out, func(a, b PodInfo) int {
		return cmp.Or(cmp.Compare(a.ID.Namespace, b.ID.Namespace), cmp.Compare(a.ID.Name, b.ID.Name))
	})
	return out, usage, nil
}
