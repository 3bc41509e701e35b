package metrics

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestMetrics(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	m, err := New(reg, Gauges{Targets: func() int { return 3 }, Stale: func() int { return 1 }})
	if err != nil {
		t.Fatal(err)
	}
	m.ObserveScrape("shoot--p--a", 20*time.Millisecond, "", false)
	m.ObserveScrape("shoot--p--a", 20*time.Millisecond, "", true)
	m.ObserveScrape("shoot--p--a", time.Second, "status", false)
	m.ObserveScrape("shoot--p--b", time.Second, "tls", false)
	want := `
# HELP kscale_custom_metrics_filtered_scrapes_total Successful scrapes answered by the pod's metrics-filter sidecar, by namespace.
# TYPE kscale_custom_metrics_filtered_scrapes_total counter
kscale_custom_metrics_filtered_scrapes_total{namespace="shoot--p--a"} 1
# HELP kscale_custom_metrics_scrape_errors_total Failed kube-apiserver metrics scrapes by namespace and reason.
# TYPE kscale_custom_metrics_scrape_errors_total counter
kscale_custom_metrics_scrape_errors_total{namespace="shoot--p--a",reason="status"} 1
kscale_custom_metrics_scrape_errors_total{namespace="shoot--p--b",reason="tls"} 1
# HELP kscale_custom_metrics_stale_targets Targets without a sample within the maximum sample age; they serve no value.
# TYPE kscale_custom_metrics_stale_targets gauge
kscale_custom_metrics_stale_targets 1
# HELP kscale_custom_metrics_targets kube-apiserver pods being scraped.
# TYPE kscale_custom_metrics_targets gauge
kscale_custom_metrics_targets 3
`
	names := []string{"kscale_custom_metrics_filtered_scrapes_total", "kscale_custom_metrics_scrape_errors_total", "kscale_custom_metrics_stale_targets", "kscale_custom_metrics_targets"}
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), names...); err != nil {
		t.Fatal(err)
	}
	if n := testutil.CollectAndCount(m.scrapeDuration); n != 2 {
		t.Fatalf("duration series = %d, want 2", n)
	}
	m.ForgetNamespace("shoot--p--a")
	if n := testutil.CollectAndCount(m.scrapeErrors); n != 1 {
		t.Fatalf("error series after forgetting a namespace = %d, want 1", n)
	}
	if n := testutil.CollectAndCount(m.filtered); n != 0 {
		t.Fatalf("filtered series after forgetting their namespace = %d, want 0", n)
	}
	if _, err := New(reg, Gauges{}); err == nil {
		t.Fatal("New() without gauges succeeded")
	}
}
