package cli

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	"k8s.io/klog/v2"

	"github.com/kscale/kscale/internal/metricsfilter"
	"github.com/kscale/kscale/internal/opsserver"
)

// metricsFilterOptions are the flags of `kscale metrics-filter`.
type metricsFilterOptions struct {
	address, metricsAddress string
	certFile, keyFile       string
	target, targetCAFile    string
	targetServerName        string
	timeout                 time.Duration
	cfg                     metricsfilter.Config
	cmn                     commonFlags
}

func (o *metricsFilterOptions) common() *commonFlags { return &o.cmn }

// newMetricsFilterCommand builds `kscale metrics-filter`.
func newMetricsFilterCommand() *cobra.Command {
	return newComponentCommand("metrics-filter", "Serve /metrics?name=... for the kube-apiserver beside it: only the named families (GEP-23 sidecar)", &metricsFilterOptions{}, commonSpec{})
}

func (o *metricsFilterOptions) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.address, "secure-address", ":9443", "Address serving /metrics?name=... over TLS.")
	fs.StringVar(&o.certFile, "tls-cert-file", "", "Serving certificate (PEM), reloaded when it changes; scrapers verify it as they verify the kube-apiserver (for kscale custom-metrics: the name kube-apiserver, signed by the cluster CA). Required.")
	fs.StringVar(&o.keyFile, "tls-private-key-file", "", "Key of --tls-cert-file (PEM). Required.")
	fs.StringVar(&o.target, "target-url", "https://127.0.0.1:443/metrics", "The kube-apiserver's metrics URL (https only: the caller's token is passed to it).")
	fs.StringVar(&o.targetCAFile, "target-ca-file", "", "CA bundle (PEM) verifying the target's certificate. Required.")
	fs.StringVar(&o.targetServerName, "target-server-name", "kube-apiserver", "Name the target's certificate is verified for; empty means the host of --target-url.")
	fs.DurationVar(&o.timeout, "target-timeout", 30*time.Second, "Timeout of one request to the target, body included.")
	fs.StringVar(&o.metricsAddress, "metrics-bind-address", ":8082", "Address serving the filter's own /metrics and health over HTTP; empty disables it.")
}

func (o *metricsFilterOptions) complete() error {
	if err := validateAddress("--secure-address", o.address, false); err != nil {
		return err
	}
	if err := validateAddress("--metrics-bind-address", o.metricsAddress, true); err != nil {
		return err
	}
	if o.certFile == "" || o.keyFile == "" {
		return errors.New("--tls-cert-file and --tls-private-key-file: required")
	}
	if _, err := tls.LoadX509KeyPair(o.certFile, o.keyFile); err != nil {
		return fmt.Errorf("--tls-cert-file: %w", err)
	}
	u, err := url.Parse(o.target)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("--target-url: %q is not an https URL", o.target)
	}
	if o.timeout <= 0 {
		return fmt.Errorf("--target-timeout: must be positive, got %s", o.timeout)
	}
	o.cfg.Target, o.cfg.Timeout = u, o.timeout
	if o.targetCAFile == "" {
		return errors.New("--target-ca-file: required")
	}
	pem, err := os.ReadFile(o.targetCAFile)
	if err != nil {
		return fmt.Errorf("--target-ca-file: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return fmt.Errorf("--target-ca-file: no PEM certificate in %s", o.targetCAFile)
	}
	o.cfg.TLS = &tls.Config{RootCAs: pool, ServerName: o.targetServerName, MinVersion: tls.VersionTLS12}
	return nil
}

// run serves until SIGTERM or SIGINT.
func (o *metricsFilterOptions) run(ctx context.Context) error {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, os.Interrupt)
	defer stop()
	reg := newProcessRegistry()
	o.cfg.Registerer = reg
	proxy, err := metricsfilter.NewProxy(o.cfg)
	if err != nil {
		return err
	}
	certs, err := dynamiccertificates.NewDynamicServingContentFromFiles("serving-cert", o.certFile, o.keyFile)
	if err != nil {
		return fmt.Errorf("--tls-cert-file: %w", err)
	}
	go certs.Run(ctx, 1)
	if o.metricsAddress != "" {
		go func() {
			if err := opsserver.ListenAndServe(ctx, "metrics-bind-address", o.metricsAddress, opsserver.Config{Gatherer: reg, Profiling: o.cmn.profiling}); err != nil {
				klog.FromContext(ctx).Error(err, "Serving own metrics failed", "address", o.metricsAddress)
			}
		}()
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", proxy)
	return serveFilter(ctx, o.address, mux, &keyPairCache{src: certs})
}

// serveFilter serves h over TLS on addr until ctx ends.
func serveFilter(ctx context.Context, addr string, h http.Handler, certs *keyPairCache) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on --secure-address %s: %w", addr, err)
	}
	srv := &http.Server{
		Handler:           h,
		TLSConfig:         &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: certs.get},
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	served := make(chan error, 1)
	go func() { served <- srv.ServeTLS(ln, "", "") }()
	klog.FromContext(ctx).Info("Serving filtered metrics", "address", ln.Addr().String())
	select {
	case err := <-served:
		return fmt.Errorf("serving filtered metrics: %w", err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return fmt.Errorf("stopping the metrics filter server: %w", err)
	}
	return nil
}

// keyPairCache parses the serving key pair once per content change.
type keyPairCache struct {
	src interface {
		CurrentCertKeyContent() (cert, key []byte)
	}
	mu        sync.Mutex
	cert, key []byte
	pair      *tls.Certificate
}

// get fits tls.Config.GetCertificate.
func (c *keyPairCache) get(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	cert, key := c.src.CurrentCertKeyContent()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pair != nil && bytes.Equal(cert, c.cert) && bytes.Equal(key, c.key) {
		return c.pair, nil
	}
	pair, err := tls.X509KeyPair(cert, key)
	if err != nil {
		return nil, fmt.Errorf("parsing serving certificate: %w", err)
	}
	c.cert, c.key, c.pair = cert, key, &pair
	return c.pair, nil
}
