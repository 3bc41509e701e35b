package provider

import (
	"net/http"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	cmprovider "sigs.k8s.io/custom-metrics-apiserver/pkg/provider"

	"github.com/kscale/kscale/internal/custommetrics/discovery"
	"github.com/kscale/kscale/internal/custommetrics/rate"
)

type podSet map[types.NamespacedName]discovery.Target

func (p podSet) Get(k types.NamespacedName) (discovery.Target, bool) { t, ok := p[k]; return t, ok }

func (p podSet) InNamespace(ns string) []discovery.Target {
	var out []discovery.Target
	for k, t := range p {
		if k.Namespace == ns {
			out = append(out, t)
		}
	}
	return out
}

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func key(name string) types.NamespacedName {
	return types.NamespacedName{Namespace: "shoot--p--a", Name: name}
}

// fixture: kapi-1 has 10 -> 20 over 60 s, kapi-2 has 100 -> 160, kapi-3 one sample only.
func newProvider(t *testing.T) (*Provider, *rate.Store) {
	t.Helper()
	cfg := rate.Config{}
	cfg.Default()
	store, err := rate.NewStore(cfg)
	if err != nil {
		t.Fatal(err)
	}
	apiLabels := map[string]string{"app": "kubernetes", "role": "apiserver"}
	pods := podSet{}
	for _, n := range []string{"kapi-1", "kapi-2", "kapi-3"} {
		pods[key(n)] = discovery.Target{Key: key(n), UID: types.UID(n + "-uid"), IP: "10.0.0.1", Labels: apiLabels}
	}
	store.Add(key("kapi-1"), "kapi-1-uid", rate.Sample{Value: 10, At: t0})
	store.Add(key("kapi-1"), "kapi-1-uid", rate.Sample{Value: 20, At: t0.Add(time.Minute)})
	store.Add(key("kapi-2"), "kapi-2-uid", rate.Sample{Value: 100, At: t0})
	store.Add(key("kapi-2"), "kapi-2-uid", rate.Sample{Value: 160, At: t0.Add(time.Minute)})
	store.Add(key("kapi-3"), "kapi-3-uid", rate.Sample{Value: 1, At: t0.Add(time.Minute)})
	p, err := New(Config{Pods: pods, Rates: store, Clock: clocktesting.NewFakePassiveClock(t0.Add(70 * time.Second))})
	if err != nil {
		t.Fatal(err)
	}
	return p, store
}

func info(metric string) cmprovider.CustomMetricInfo {
	return cmprovider.CustomMetricInfo{GroupResource: podsResource, Namespaced: true, Metric: metric}
}

// TestGetMetricByName is scenario 4 (encoding) and the 404 cases of scenario 10.
func TestGetMetricByName(t *testing.T) {
	p, _ := newProvider(t)
	v, err := p.GetMetricByName(t.Context(), key("kapi-1"), info("shoot:apiserver_request_total:sum"), labels.Everything())
	if err != nil {
		t.Fatal(err)
	}
	if v.Value.String() != "166m" || *v.WindowSeconds != 60 || !v.Timestamp.Time.Equal(t0.Add(time.Minute)) {
		t.Fatalf("value %s window %d at %s; want 166m, 60, t0+60s", v.Value.String(), *v.WindowSeconds, v.Timestamp)
	}
	obj := v.DescribedObject
	if obj.Kind != "Pod" || obj.APIVersion != "v1" || obj.Name != "kapi-1" || obj.Namespace != "shoot--p--a" || obj.UID != "kapi-1-uid" {
		t.Fatalf("describedObject = %+v", obj)
	}
	if v.Metric.Name != "shoot:apiserver_request_total:sum" {
		t.Fatalf("metric name = %q", v.Metric.Name)
	}
	for _, tc := range []struct {
		name   string
		pod    string
		metric string
	}{
		{"single sample only", "kapi-3", "shoot:apiserver_request_total:sum"},
		{"unknown pod", "kapi-9", "shoot:apiserver_request_total:sum"},
		{"unknown metric", "kapi-1", "shoot:something_else"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := p.GetMetricByName(t.Context(), key(tc.pod), info(tc.metric), labels.Everything())
			if !apierrors.IsNotFound(err) || apierrors.ReasonForError(err) != "NotFound" {
				t.Fatalf("error = %v, want 404 NotFound", err)
			}
			if code := err.(apierrors.APIStatus).Status().Code; code != http.StatusNotFound {
				t.Fatalf("status code %d, want 404", code)
			}
		})
	}
}

func TestGetMetricBySelector(t *testing.T) {
	p, store := newProvider(t)
	sel := labels.SelectorFromSet(labels.Set{"app": "kubernetes", "role": "apiserver"})
	list, err := p.GetMetricBySelector(t.Context(), "shoot--p--a", sel, info("shoot:apiserver_request_total:rate"), labels.Everything())
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 2 || list.Items[0].DescribedObject.Name != "kapi-1" || list.Items[1].Value.String() != "1" {
		t.Fatalf("items = %+v, want kapi-1 (166m) and kapi-2 (1)", list.Items)
	}
	other := labels.SelectorFromSet(labels.Set{"role": "other"})
	if list, err := p.GetMetricBySelector(t.Context(), "shoot--p--a", other, info("shoot:apiserver_request_total:sum"), labels.Everything()); err != nil || len(list.Items) != 0 {
		t.Fatalf("role=other: %v items, %v; want an empty list", len(list.Items), err)
	}
	if _, err := p.GetMetricBySelector(t.Context(), "shoot--p--a", sel, info("nope"), labels.Everything()); !apierrors.IsNotFound(err) {
		t.Fatalf("unknown metric: error = %v, want 404", err)
	}
	// A pod recreated under the same name: the old series' rate is not served for the new UID.
	store.Add(key("kapi-2"), "other-uid", rate.Sample{Value: 1, At: t0.Add(65 * time.Second)})
	if list, _ := p.GetMetricBySelector(t.Context(), "shoot--p--a", sel, info("shoot:apiserver_request_total:sum"), labels.Everything()); len(list.Items) != 1 {
		t.Fatalf("after UID change: %d items, want 1", len(list.Items))
	}
}

func TestListAllMetrics(t *testing.T) {
	p, _ := newProvider(t)
	got := p.ListAllMetrics()
	if len(got) != 2 || got[0] != info(DefaultMetricNames[0]) || got[1] != info(DefaultMetricNames[1]) {
		t.Fatalf("ListAllMetrics() = %+v", got)
	}
}

// TestWeightedMetric checks the weighted names serve the weighted rate of
// the same pair, with the same staleness and UID rules, beside the plain one.
func TestWeightedMetric(t *testing.T) {
	cfg := rate.Config{}
	cfg.Default()
	store, err := rate.NewStore(cfg)
	if err != nil {
		t.Fatal(err)
	}
	pods := podSet{key("kapi-1"): {Key: key("kapi-1"), UID: "u1", Labels: map[string]string{"role": "apiserver"}}}
	store.Add(key("kapi-1"), "u1", rate.Sample{Value: 10, Weighted: 100, At: t0})
	store.Add(key("kapi-1"), "u1", rate.Sample{Value: 70, Weighted: 400, At: t0.Add(time.Minute)})
	const weighted = "shoot:apiserver_request_total:weighted_rate"
	clk := clocktesting.NewFakePassiveClock(t0.Add(70 * time.Second))
	p, err := New(Config{Pods: pods, Rates: store, Clock: clk, WeightedMetricNames: []string{weighted}})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.ListAllMetrics(); len(got) != 3 || got[2] != info(weighted) {
		t.Fatalf("ListAllMetrics() = %+v, want the plain names and %s", got, weighted)
	}
	for metric, want := range map[string]string{weighted: "5", DefaultMetricNames[0]: "1"} {
		v, err := p.GetMetricByName(t.Context(), key("kapi-1"), info(metric), labels.Everything())
		if err != nil || v.Value.String() != want || v.Metric.Name != metric {
			t.Fatalf("%s = %+v, %v; want %s", metric, v, err, want)
		}
		list, err := p.GetMetricBySelector(t.Context(), "shoot--p--a", labels.Everything(), info(metric), labels.Everything())
		if err != nil || len(list.Items) != 1 || list.Items[0].Value.String() != want {
			t.Fatalf("%s list = %+v, %v; want one item of %s", metric, list, err, want)
		}
	}
	clk.SetTime(t0.Add(151 * time.Second))
	if _, err := p.GetMetricByName(t.Context(), key("kapi-1"), info(weighted), labels.Everything()); !apierrors.IsNotFound(err) {
		t.Fatalf("stale weighted rate: error = %v, want 404", err)
	}
}

func TestConfigValidate(t *testing.T) {
	pods, store := podSet{}, &rate.Store{}
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Pods: pods, Rates: store, MetricNames: []string{"a/b"}}, "metricNames[0]"},
		{Config{Pods: pods, Rates: store, WeightedMetricNames: []string{" "}}, "weightedMetricNames[0]"},
		{Config{Pods: pods, Rates: store, MetricNames: []string{"x"}, WeightedMetricNames: []string{"y", "x"}}, "weightedMetricNames[1]"},
		{Config{Pods: pods}, "pods and rates"},
	} {
		if _, err := New(tc.cfg); err == nil || !strings.HasPrefix(err.Error(), "validating provider config: "+tc.want) {
			t.Errorf("New(%+v) = %v, want an error on %s", tc.cfg, err, tc.want)
		}
	}
}
