package custommetrics

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kscale/kscale/internal/custommetrics/credentials"
	"github.com/kscale/kscale/internal/custommetrics/discovery"
	"github.com/kscale/kscale/internal/custommetrics/metrics"
	"github.com/kscale/kscale/internal/custommetrics/parse"
	"github.com/kscale/kscale/internal/custommetrics/rate"
	"github.com/kscale/kscale/internal/custommetrics/scrape"
)

type noPods struct{}

func (noPods) InNamespace(string) []discovery.Target { return nil }

func TestReason(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{nil, ""},
		{fmt.Errorf("x: %w", &credentials.MissingError{Namespace: "n", What: "w"}), "credentials"},
		{fmt.Errorf("x: %w", &scrape.StatusError{Code: 401}), "http_status"},
		{fmt.Errorf("x: %w", x509.UnknownAuthorityError{}), "tls"},
		{fmt.Errorf("x: %w", context.DeadlineExceeded), "timeout"},
		{fmt.Errorf("x: %w", scrape.ErrBodyTooLarge), "too_large"},
		{fmt.Errorf("x: %w", &parse.SyntaxError{Line: 1, Reason: "r"}), "parse"},
		{fmt.Errorf("x: %w", parse.ErrNoSeries), "parse"},
		{errors.New("connection refused"), "transport"},
	}
	for _, tt := range tests {
		if got := reason(tt.err); got != tt.want {
			t.Errorf("reason(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

// TestSink: a failed scrape (wrong token, 401) stores no sample and counts
// a fault; a success stores the sample and resets the fault count.
func TestSink(t *testing.T) {
	cfg := rate.Config{}
	cfg.Default()
	store, err := rate.NewStore(cfg)
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg, metrics.Gauges{Targets: func() int { return 1 }, Stale: func() int { return 0 }})
	if err != nil {
		t.Fatal(err)
	}
	var forgotten []string
	s := &sink{log: logr.Discard(), store: store, metrics: m, pods: noPods{}, faults: map[types.NamespacedName]int{},
		forgetTransport: func(ns string) { forgotten = append(forgotten, ns) }}
	tgt := discovery.Target{Key: types.NamespacedName{Namespace: "shoot--p--a", Name: "kapi-1"}, UID: "u"}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

	if n := s.Observe(tgt, scrape.Result{}, &scrape.StatusError{Code: 401}, time.Second); n != 0 {
		t.Fatalf("Observe(error) = %d samples, want 0", n)
	}
	s.Observe(tgt, scrape.Result{}, &scrape.StatusError{Code: 401}, time.Second)
	if store.Fresh(tgt.Key, now) || s.faults[tgt.Key] != 2 {
		t.Fatalf("after two failures: fresh=%v faults=%d; want no sample and 2 faults", store.Fresh(tgt.Key, now), s.faults[tgt.Key])
	}
	if got := testutil.ToFloat64(counter(t, reg)); got != 2 {
		t.Fatalf("scrape_errors_total = %v, want 2", got)
	}
	if n := s.Observe(tgt, scrape.Result{Value: 10, At: now}, nil, time.Second); n != 1 {
		t.Fatalf("Observe(success) = %d samples, want 1", n)
	}
	if !store.Fresh(tgt.Key, now) || s.faults[tgt.Key] != 0 {
		t.Fatal("success did not store the sample or reset the faults")
	}
	s.Forget(tgt)
	if store.Fresh(tgt.Key, now) || len(forgotten) != 1 {
		t.Fatalf("Forget: fresh=%v forgotten transports=%v", store.Fresh(tgt.Key, now), forgotten)
	}
}

func counter(t *testing.T, reg *prometheus.Registry) prometheus.Collector {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == "kscale_custom_metrics_scrape_errors_total" && len(f.GetMetric()) == 1 {
			return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "x"}, func() float64 { return f.GetMetric()[0].GetCounter().GetValue() })
		}
	}
	t.Fatal("no scrape error series")
	return nil
}
