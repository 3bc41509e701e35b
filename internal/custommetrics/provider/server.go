package provider

import (
	"context"
	"errors"
	"fmt"
	"net"

	"github.com/spf13/pflag"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	basecmd "sigs.k8s.io/custom-metrics-apiserver/pkg/cmd"
	"sigs.k8s.io/custom-metrics-apiserver/pkg/cmd/options"
	cmprovider "sigs.k8s.io/custom-metrics-apiserver/pkg/provider"
)

// DefaultSecurePort is the HTTPS port of the metrics API.
const DefaultSecurePort = 6443

// Server is the aggregated API server. Its flags (secure serving, delegated
// authentication and authorization, audit, --lister-kubeconfig, ...) are the
// library's; NewServer adds them to a flag set.
type Server struct {
	base   *basecmd.AdapterBase
	listen func() (net.Listener, error)
	cert   dynamiccertificates.CertKeyContentProvider
}

// CertSource is a serving certificate that changes while the server runs,
// for example certificates that manage themselves (internal/selfcert).
type CertSource interface {
	// CurrentCertKeyContent returns the certificate and key as PEM.
	CurrentCertKeyContent() (cert, key []byte)
	// AddListener registers f to be called after the certificate changed.
	AddListener(f func())
}

// SetServingCert makes Serve present src's certificate, picking up every
// change without a restart, instead of --tls-cert-file. It fails when
// certificate files are also configured.
func (s *Server) SetServingCert(src CertSource) error {
	if s.HasCertFiles() {
		return errors.New("--tls-cert-file and --tls-private-key-file: exclude --self-signed-cert-secret")
	}
	s.cert = dynamicCert{src}
	return nil
}

// HasCertFiles reports whether --tls-cert-file or --tls-private-key-file is set.
func (s *Server) HasCertFiles() bool {
	c := s.base.SecureServing.ServerCert.CertKey
	return c.CertFile != "" || c.KeyFile != ""
}

// dynamicCert adapts a CertSource to the API server library's dynamic
// serving certificate, which reloads on every listener call.
type dynamicCert struct{ src CertSource }

// Name names the certificate in the library's logs.
func (dynamicCert) Name() string { return "kscale-self-signed-serving-cert" }

// CurrentCertKeyContent returns the source's certificate and key.
func (d dynamicCert) CurrentCertKeyContent() ([]byte, []byte) { return d.src.CurrentCertKeyContent() }

// AddListener has the library reload when the source changes.
func (d dynamicCert) AddListener(l dynamiccertificates.Listener) { d.src.AddListener(l.Enqueue) }

// NewServer adds the server's flags to fs. Without --tls-cert-file the
// server uses an in-memory self-signed certificate; profiling is off unless
// --profiling is given.
func NewServer(fs *pflag.FlagSet, name string) *Server {
	opts := options.NewCustomMetricsAdapterServerOptions()
	opts.SecureServing.BindPort = DefaultSecurePort
	opts.SecureServing.ServerCert.CertDirectory = ""
	opts.Features.EnableProfiling = false
	base := &basecmd.AdapterBase{Name: name, FlagSet: fs, CustomMetricsAdapterServerOptions: opts}
	base.InstallFlags()
	return &Server{base: base}
}

// SetListen makes Serve accept on the listener listen opens instead of
// binding --bind-address and --secure-port, for example a listener inside a
// network namespace. Like the default, it is opened only when Serve starts.
func (s *Server) SetListen(listen func() (net.Listener, error)) {
	s.listen = listen
}

// SetKubeconfig sets the kubeconfig the library's clients use when
// --lister-kubeconfig is not given.
func (s *Server) SetKubeconfig(path string) {
	if s.base.RemoteKubeConfigFile == "" {
		s.base.RemoteKubeConfigFile = path
	}
}

// Serve serves p until ctx ends.
func (s *Server) Serve(ctx context.Context, p cmprovider.CustomMetricsProvider) error {
	if s.listen != nil {
		l, err := s.listen()
		if err != nil {
			return fmt.Errorf("opening listener: %w", err)
		}
		s.base.SecureServing.Listener = l
	}
	s.base.WithCustomMetrics(p)
	if s.cert != nil {
		// The library's options know only files or a certificate generated
		// once; the dynamic one replaces it in the built configuration.
		cfg, err := s.base.Config()
		if err != nil {
			return fmt.Errorf("configuring custom metrics API server: %w", err)
		}
		cfg.GenericConfig.SecureServing.Cert = s.cert
	}
	if err := s.base.Run(ctx); err != nil {
		return fmt.Errorf("running custom metrics API server: %w", err)
	}
	return nil
}

// Validate checks the serving, authentication and authorization flags
// the library registered, each error naming its flag.
func (s *Server) Validate() error {
	return errors.Join(s.base.Validate()...)
}
