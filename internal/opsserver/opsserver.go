// Package opsserver serves a component's operational HTTP endpoints on its
// metrics address, with upstream's paths: /metrics, /health-check (and
// /healthz and /readyz as aliases) and, with --profiling, /debug/pprof.
package opsserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// HealthPath is the path upstream's probes use; AliasHealthPath is kscale's
// earlier path, kept so existing probes keep working.
const (
	HealthPath      = "/health-check"
	AliasHealthPath = "/healthz"
	// ReadyPath is controller-runtime's readiness path, which
	// gardener-custom-metrics' health server has.
	ReadyPath = "/readyz"
)

// Checker reports whether the component is healthy; a non-nil error fails
// the health check with its message.
type Checker interface {
	Check() error
}

// CheckerFunc adapts a function to Checker.
type CheckerFunc func() error

// Check calls f.
func (f CheckerFunc) Check() error { return f() }

// Config configures the endpoints.
type Config struct {
	// Gatherer is served on /metrics; required.
	Gatherer prometheus.Gatherer
	// Health is asked on every health request; nil always answers 200.
	Health Checker
	// Profiling mounts net/http/pprof under /debug/pprof/ (--profiling).
	Profiling bool
}

// Handler returns the endpoints' handler; unknown paths get 404.
func Handler(cfg Config) (http.Handler, error) {
	if cfg.Gatherer == nil {
		return nil, errors.New("opsserver: a Gatherer is required")
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(cfg.Gatherer, promhttp.HandlerOpts{}))
	health := healthHandler(cfg.Health)
	mux.Handle(HealthPath, health)
	mux.Handle(AliasHealthPath, health)
	mux.Handle(ReadyPath, health)
	if cfg.Profiling {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	return mux, nil
}

// healthHandler answers 200 "OK" (upstream's body) or 500 with the
// checker's error.
func healthHandler(c Checker) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if c != nil {
			if err := c.Check(); err != nil {
				http.Error(w, "Error: "+err.Error(), http.StatusInternalServerError)
				return
			}
		}
		_, _ = w.Write([]byte("OK"))
	})
}

// Serve serves cfg's endpoints on ln until ctx ends, then shuts down
// gracefully.
func Serve(ctx context.Context, ln net.Listener, cfg Config) error {
	h, err := Handler(cfg)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serving metrics and health on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutting down the metrics server: %w", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serving metrics and health on %s: %w", ln.Addr(), err)
	}
	return nil
}

// ListenAndServe listens on addr (the flag named flag) and serves like
// Serve; a listen error names the flag.
func ListenAndServe(ctx context.Context, flag, addr string, cfg Config) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--%s: %w", flag, err)
	}
	return Serve(ctx, ln, cfg)
}
