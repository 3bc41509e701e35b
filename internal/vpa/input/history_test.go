package input

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	testingclock "k8s.io/utils/clock/testing"

	"github.com/kscale/kscale/internal/vpa/model"
)

// promServer answers /api/v1/query_range with a matrix chosen by the
// metric name in the query, or with an error.
func promServer(t *testing.T, series map[string]string, fail bool) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil || r.URL.Path != "/api/v1/query_range" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if fail {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = fmt.Fprint(w, `{"status":"error","errorType":"bad_data","error":"parse error"}`)
			return
		}
		q := r.Form.Get("query")
		result := "[]"
		for prefix, m := range series {
			if strings.Contains(q, prefix) {
				result = m
			}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"status": "success", "data": map[string]any{"resultType": "matrix", "result": json.RawMessage(result)}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestPrometheusHistory(t *testing.T) {
	end := time.Date(2026, 3, 9, 0, 0, 0, 0, time.UTC)
	ts := func(h int) float64 { return float64(end.Add(time.Duration(-h) * time.Hour).Unix()) }
	series := map[string]string{
		"container_cpu_usage_seconds_total": fmt.Sprintf(`[{"metric":{"namespace":"ns","pod":"web-1","container":"app"},"values":[[%v,"0.5"],[%v,"0.25"]]}]`, ts(2), ts(1)),
		"container_memory_working_set_bytes": fmt.Sprintf(`[{"metric":{"namespace":"ns","pod":"web-1","container":"app"},"values":[[%v,"1048576"]]},
			{"metric":{"namespace":"ns","pod":"","container":"app"},"values":[[%v,"1"]]}]`, ts(1), ts(1)),
		"up{": fmt.Sprintf(`[{"metric":{"kubernetes_namespace":"ns","kubernetes_pod_name":"web-1","pod_label_app":"web","other":"x"},"values":[[%v,"1"]]}]`, ts(1)),
	}
	cfg := HistoryConfig{Address: promServer(t, series, false).URL}
	cfg.Default()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewPedanticRegistry()
	h, err := NewPrometheusHistory(cfg, testingclock.NewFakePassiveClock(end), reg)
	if err != nil {
		t.Fatal(err)
	}
	pods, usage, err := h.Load(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// Three queries (CPU, memory, pod labels), each counted and timed
	// under its status code and method.
	if got := requestsCounted(t, reg); got != 3 {
		t.Errorf("prometheus_client_api_requests_count total %v, want 3", got)
	}
	want := PodInfo{ID: model.PodID{Namespace: "ns", Name: "web-1"}, Labels: map[string]string{"app": "web"}, Containers: []string{"app"}}
	if len(pods) != 1 || pods[0].ID != want.ID || len(pods[0].Labels) != 1 || pods[0].Labels["app"] != "web" || len(pods[0].Containers) != 1 {
		t.Fatalf("pods = %+v, want [%+v]", pods, want)
	}
	if len(usage) != 3 {
		t.Fatalf("usage = %+v, want 3 samples", usage)
	}
	for i := 1; i < len(usage); i++ {
		if usage[i].Time.Before(usage[i-1].Time) {
			t.Fatalf("samples not in time order: %+v", usage)
		}
	}
	if usage[0].CPUCores != 0.5 || usage[0].MemoryBytes >= 0 {
		t.Fatalf("first sample = %+v, want cpu 0.5 and no memory", usage[0])
	}

	t.Run("a Prometheus error is returned with the query", func(t *testing.T) {
		cfg := HistoryConfig{Address: promServer(t, nil, true).URL}
		cfg.Default()
		h, err := NewPrometheusHistory(cfg, testingclock.NewFakePassiveClock(end), nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := h.Load(t.Context()); err == nil || !strings.Contains(err.Error(), "container_cpu_usage_seconds_total") {
			t.Fatalf("Load error = %v, want one naming the query", err)
		}
	})
	t.Run("an address is required", func(t *testing.T) {
		cfg := HistoryConfig{}
		cfg.Default()
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "prometheus-address") {
			t.Fatalf("Validate = %v", err)
		}
	})
}

// requestsCounted sums prometheus_client_api_requests_count over its series
// and checks that the duration histogram saw as many requests.
func requestsCounted(t *testing.T, reg *prometheus.Registry) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var count, timed float64
	for _, f := range families {
		for _, m := range f.GetMetric() {
			switch f.GetName() {
			case "vpa_recommender_prometheus_client_api_requests_count":
				count += m.GetCounter().GetValue()
			case "vpa_recommender_prometheus_client_api_requests_duration_seconds":
				timed += float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	if timed != count {
		t.Errorf("requests timed %v, counted %v", timed, count)
	}
	return count
}
