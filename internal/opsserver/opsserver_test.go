package opsserver

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

func TestEndpoints(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(prometheus.NewGauge(prometheus.GaugeOpts{Name: "test_gauge", Help: "h"}))
	var healthErr error
	tests := []struct {
		name      string
		profiling bool
		healthErr error
		path      string
		wantCode  int
		wantBody  string
	}{
		{"metrics", false, nil, "/metrics", 200, "test_gauge 0"},
		{"health ok", false, nil, "/health-check", 200, "OK"},
		{"health alias", false, nil, "/healthz", 200, "OK"},
		{"health failing", false, errors.New("last activity 11m ago"), "/health-check", 500, "Error: last activity 11m ago"},
		{"alias failing", false, errors.New("stale"), "/healthz", 500, "Error: stale"},
		{"pprof off", false, nil, "/debug/pprof/", 404, ""},
		{"pprof on", true, nil, "/debug/pprof/", 200, "goroutine"},
		{"pprof cmdline", true, nil, "/debug/pprof/cmdline", 200, ""},
		{"unknown", true, nil, "/snapshotz", 404, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			healthErr = tt.healthErr
			ctx, cancel := context.WithCancel(t.Context())
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				done <- Serve(ctx, ln, Config{Gatherer: reg, Profiling: tt.profiling, Health: CheckerFunc(func() error { return healthErr })})
			}()
			resp, err := http.Get("http://" + ln.Addr().String() + tt.path)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode != tt.wantCode || !strings.Contains(string(body), tt.wantBody) {
				t.Errorf("GET %s = %d %q, want %d containing %q", tt.path, resp.StatusCode, body, tt.wantCode, tt.wantBody)
			}
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Serve() = %v", err)
			}
		})
	}
}

func TestHandlerNeedsGatherer(t *testing.T) {
	if _, err := Handler(Config{}); err == nil {
		t.Fatal("Handler(Config{}) = nil error, want one")
	}
}
