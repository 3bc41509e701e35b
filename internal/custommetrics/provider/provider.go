package provider

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/metrics/pkg/apis/custom_metrics"
	"k8s.io/utils/clock"
	cmprovider "sigs.k8s.io/custom-metrics-apiserver/pkg/provider"

	"github.com/kscale/kscale/internal/custommetrics/discovery"
	"github.com/kscale/kscale/internal/custommetrics/rate"
)

// DefaultMetricNames are the served names: the one the reference serves and the one GEP-23 names.
var DefaultMetricNames = []string{"shoot:apiserver_request_total:sum", "shoot:apiserver_request_total:rate"}

// DefaultWeightedMetricNames are the served names of the cost-weighted
// request rate (GEP-23 stage 2), served when a cost table is configured.
var DefaultWeightedMetricNames = []string{"shoot:apiserver_request_total:weighted_rate"}

var podsResource = schema.GroupResource{Resource: "pods"}

// Pods looks up scrape targets.
type Pods interface {
	Get(key types.NamespacedName) (discovery.Target, bool)
	InNamespace(namespace string) []discovery.Target
}

// Rates looks up a target's rate.
type Rates interface {
	Rate(key types.NamespacedName, now time.Time) (rate.Rate, bool)
}

// Config configures a Provider.
type Config struct {
	// Pods supplies the targets and their labels.
	Pods Pods
	// Rates supplies rates.
	Rates Rates
	// MetricNames are the served names of the request rate; default DefaultMetricNames.
	MetricNames []string
	// WeightedMetricNames are the served names of the cost-weighted
	// request rate; none when empty.
	WeightedMetricNames []string
	// Clock tells the query time; default the real clock.
	Clock clock.PassiveClock
}

// Default fills unset fields.
func (c *Config) Default() {
	if len(c.MetricNames) == 0 {
		c.MetricNames = slices.Clone(DefaultMetricNames)
	}
	if c.Clock == nil {
		c.Clock = clock.RealClock{}
	}
}

// Validate reports the first invalid field.
func (c *Config) Validate() error {
	if c.Pods == nil || c.Rates == nil {
		return errors.New("pods and rates: required")
	}
	for i, n := range c.MetricNames {
		if !validName(n) {
			return fmt.Errorf("metricNames[%d]: %q is not a valid metric name", i, n)
		}
	}
	for i, n := range c.WeightedMetricNames {
		if !validName(n) {
			return fmt.Errorf("weightedMetricNames[%d]: %q is not a valid metric name", i, n)
		}
		if slices.Contains(c.MetricNames, n) {
			return fmt.Errorf("weightedMetricNames[%d]: %q is also a name of the plain rate", i, n)
		}
	}
	return nil
}

func validName(n string) bool {
	return strings.TrimSpace(n) != "" && !strings.Contains(n, "/")
}

// Provider implements the custom metrics provider interface.
type Provider struct {
	cfg Config
}

var _ cmprovider.CustomMetricsProvider = (*Provider)(nil)

// New returns a Provider.
func New(cfg Config) (*Provider, error) {
	cfg.Default()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("validating provider config: %w", err)
	}
	return &Provider{cfg: cfg}, nil
}

// ListAllMetrics lists each metric name on namespaced pods.
func (p *Provider) ListAllMetrics() []cmprovider.CustomMetricInfo {
	out := make([]cmprovider.CustomMetricInfo, 0, len(p.cfg.MetricNames)+len(p.cfg.WeightedMetricNames))
	for _, n := range slices.Concat(p.cfg.MetricNames, p.cfg.WeightedMetricNames) {
		out = append(out, cmprovider.CustomMetricInfo{GroupResource: podsResource, Namespaced: true, Metric: n})
	}
	return out
}

// GetMetricByName returns one pod's rate (plain or weighted by the metric's name), or a 404 error when the metric is
// unknown or the pod has no fresh rate.
func (p *Provider) GetMetricByName(_ context.Context, name types.NamespacedName, info cmprovider.CustomMetricInfo, metricSelector labels.Selector) (*custom_metrics.MetricValue, error) {
	weighted, ok := p.serves(info)
	if !ok {
		return nil, cmprovider.NewMetricNotFoundError(info.GroupResource, info.Metric)
	}
	if t, ok := p.cfg.Pods.Get(name); ok && matchesNoLabels(metricSelector) {
		if r, ok := p.cfg.Rates.Rate(name, p.cfg.Clock.Now()); ok && r.UID == t.UID {
			v := value(t, r, info.Metric, weighted)
			return &v, nil
		}
	}
	return nil, cmprovider.NewMetricNotFoundForError(info.GroupResource, info.Metric, name.Name)
}

// GetMetricBySelector returns the rates of the namespace's pods matching
// selector that have a fresh rate; an unknown metric is a 404 error.
func (p *Provider) GetMetricBySelector(_ context.Context, namespace string, selector labels.Selector, info cmprovider.CustomMetricInfo, metricSelector labels.Selector) (*custom_metrics.MetricValueList, error) {
	weighted, ok := p.serves(info)
	if !ok {
		return nil, cmprovider.NewMetricNotFoundError(info.GroupResource, info.Metric)
	}
	list := &custom_metrics.MetricValueList{Items: []custom_metrics.MetricValue{}}
	if !matchesNoLabels(metricSelector) {
		return list, nil
	}
	now := p.cfg.Clock.Now()
	for _, t := range p.cfg.Pods.InNamespace(namespace) {
		if selector != nil && !selector.Matches(labels.Set(t.Labels)) {
			continue
		}
		if r, ok := p.cfg.Rates.Rate(t.Key, now); ok && r.UID == t.UID {
			list.Items = append(list.Items, value(t, r, info.Metric, weighted))
		}
	}
	slices.SortFunc(list.Items, func(a, b custom_metrics.MetricValue) int {
		return strings.Compare(a.DescribedObject.Name, b.DescribedObject.Name)
	})
	return list, nil
}

// serves reports whether the metric is served and whether it is the weighted rate.
func (p *Provider) serves(info cmprovider.CustomMetricInfo) (weighted, ok bool) {
	if !info.Namespaced || info.GroupResource != podsResource {
		return false, false
	}
	if slices.Contains(p.cfg.WeightedMetricNames, info.Metric) {
		return true, true
	}
	return false, slices.Contains(p.cfg.MetricNames, info.Metric)
}

// matchesNoLabels reports whether a metric-label selector accepts a series
// without labels, which is what this metric is.
func matchesNoLabels(sel labels.Selector) bool {
	return sel == nil || sel.Matches(labels.Set{})
}

// value encodes a rate, plain or weighted: the value in milli-units
// truncated, the window in whole seconds, the time of the newer sample.
func value(t discovery.Target, r rate.Rate, metric string, weighted bool) custom_metrics.MetricValue {
	window := int64(math.Round(r.Window.Seconds()))
	per := r.PerSecond
	if weighted {
		per = r.WeightedPerSecond
	}
	return custom_metrics.MetricValue{
		DescribedObject: custom_metrics.ObjectReference{
			Kind: "Pod", APIVersion: "v1", Name: t.Key.Name, Namespace: t.Key.Namespace, UID: t.UID,
		},
		Metric:        custom_metrics.MetricIdentifier{Name: metric},
		Timestamp:     metav1.NewTime(r.At),
		WindowSeconds: &window,
		Value:         *resource.NewMilliQuantity(int64(per*1000), resource.DecimalSI),
	}
}
