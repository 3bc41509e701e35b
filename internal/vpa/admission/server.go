package admission

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Deps are the webhook's collaborators.
type Deps struct {
	// Client reads VPAs, LimitRanges and pod owners, and writes the webhook
	// configuration and the status Lease.
	Client client.Client
	// Resolver resolves VPA targets and pod owners.
	Resolver Resolver
	// Registerer receives the webhook's metrics.
	Registerer prometheus.Registerer
	// Clock drives the status Lease; default the real clock.
	Clock clock.Clock
	// Identity is the Lease holder, for example the pod name.
	Identity string
	// Certificates supplies the serving certificate and CA bundle; required
	// with SelfSignedSecret, else they come from the configured files.
	Certificates Certificates
}

// Server is the admission webhook.
type Server struct {
	cfg     Config
	deps    Deps
	handler *Handler
	certs   Certificates
}

// New validates cfg and builds the webhook.
func New(cfg Config, deps Deps) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("validating admission config: %w", err)
	}
	if deps.Client == nil || deps.Resolver == nil || deps.Registerer == nil {
		return nil, errors.New("building admission webhook: Client, Resolver and Registerer are required")
	}
	if cfg.StatusLease == "" {
		cfg.StatusLease = StatusLeaseName
	}
	if cfg.StatusLeaseNamespace == "" {
		cfg.StatusLeaseNamespace = cfg.Namespace
	}
	if deps.Clock == nil {
		deps.Clock = clock.RealClock{}
	}
	if deps.Identity == "" {
		deps.Identity = "kscale-vpa-admission"
	}
	m, err := NewMetrics(deps.Registerer)
	if err != nil {
		return nil, err
	}
	certs := deps.Certificates
	switch {
	case certs == nil && cfg.SelfSignedSecret != "":
		return nil, errors.New("building admission webhook: Certificates are required with --self-signed-cert-secret")
	case certs == nil:
		files, err := newCertReloader(cfg.CertFile, cfg.KeyFile, cfg.ReloadCert)
		if err != nil {
			return nil, err
		}
		certs = &fileCertificates{certReloader: files, caFile: cfg.CAFile}
	}
	h := &Handler{
		pods: &podReviewer{matcher: &vpaMatcher{reader: deps.Client, resolver: deps.Resolver, boost: cfg.Features.CPUStartupBoost},
			reader: deps.Client, metrics: m, boost: cfg.Features.CPUStartupBoost, maxBoost: cfg.MaxAllowedCPUBoost},
		vpas: &vpaReviewer{metrics: m, gates: cfg.Features},
		m:    m.upstream,
	}
	return &Server{cfg: cfg, deps: deps, handler: h, certs: certs}, nil
}

// Run listens on the configured port and serves until ctx ends.
func (s *Server) Run(ctx context.Context) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", net.JoinHostPort("", strconv.Itoa(s.cfg.Port)))
	if err != nil {
		return fmt.Errorf("listening on port %d: %w", s.cfg.Port, err)
	}
	return s.Serve(ctx, ln)
}

// Serve serves the webhook over TLS on ln, registers the webhook
// configuration when configured to, and renews the status Lease, until ctx
// ends. It closes ln.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	log := klog.FromContext(ctx)
	s.handler.log = log
	minVersion, _ := tlsVersion(s.cfg.MinTLSVersion)
	srv := &http.Server{
		Handler:           s.handler,
		TLSConfig:         &tls.Config{MinVersion: minVersion, CipherSuites: s.cfg.CipherSuites, GetCertificate: s.certs.GetCertificate},
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	served := make(chan error, 1)
	go func() { served <- srv.ServeTLS(ln, "", "") }()
	if s.cfg.RegisterWebhook {
		if err := s.register(ctx); err != nil {
			_ = srv.Close()
			return errors.Join(err, serveErr(<-served))
		}
		log.Info("Registered the admission webhook", "configuration", s.cfg.ConfigurationName)
	}
	lease := &statusLease{client: s.deps.Client, namespace: s.cfg.StatusLeaseNamespace, name: s.cfg.StatusLease, holder: s.deps.Identity,
		interval: s.cfg.StatusLeaseInterval, clock: s.deps.Clock}
	leaseCtx, stopLease := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { lease.run(leaseCtx) })
	var err error
	select {
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		err = errors.Join(srv.Shutdown(shutdown), serveErr(<-served))
	case e := <-served:
		err = serveErr(e)
	}
	stopLease()
	wg.Wait()
	return err
}

// register registers the webhook with the current CA bundle.
func (s *Server) register(ctx context.Context) error {
	ca, err := s.certs.CABundle()
	if err != nil {
		return err
	}
	return Register(ctx, s.deps.Client, s.cfg, ca)
}

// serveErr drops the error a closed server returns by design.
func serveErr(err error) error {
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}
