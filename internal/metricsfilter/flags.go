package metricsfilter

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/pflag"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"

	"github.com/kscale/kscale/internal/componentflags"
	"github.com/kscale/kscale/internal/operator"
)

// Flags are the command-line flags of `kscale metrics-filter` and their
// conversion into a Config.
type Flags struct {
	address, metricsAddress string
	certFile, keyFile       string
	target, targetCAFile    string
	targetServerName        string
	timeout                 time.Duration
	cfg                     Config
}

// AddFlags registers the flags on fs.
func (o *Flags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.address, "secure-address", ":9443", "Address serving /metrics?name=... over TLS.")
	fs.StringVar(&o.certFile, "tls-cert-file", "", "Serving certificate (PEM), reloaded when it changes; scrapers verify it as they verify the kube-apiserver (for kscale custom-metrics: the name kube-apiserver, signed by the cluster CA). Required.")
	fs.StringVar(&o.keyFile, "tls-private-key-file", "", "Key of --tls-cert-file (PEM). Required.")
	fs.StringVar(&o.target, "target-url", "https://127.0.0.1:443/metrics", "The kube-apiserver's metrics URL (https only: the caller's token is passed to it).")
	fs.StringVar(&o.targetCAFile, "target-ca-file", "", "CA bundle (PEM) verifying the target's certificate. Required.")
	fs.StringVar(&o.targetServerName, "target-server-name", "kube-apiserver", "Name the target's certificate is verified for; empty means the host of --target-url.")
	fs.DurationVar(&o.timeout, "target-timeout", 30*time.Second, "Timeout of one request to the target, body included.")
	fs.StringVar(&o.metricsAddress, "metrics-bind-address", ":8082", "Address serving the filter's own /metrics and health over HTTP; empty disables it.")
}

// Complete validates the flags and reads the certificates; its errors name
// the flag.
func (o *Flags) Complete() error {
	if err := componentflags.ValidateAddress("--secure-address", o.address, false); err != nil {
		return err
	}
	if err := componentflags.ValidateAddress("--metrics-bind-address", o.metricsAddress, true); err != nil {
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

// Host builds the filter from the completed flags: every replica reloads
// the serving certificate and serves the filtered metrics over TLS; the
// host serves the filter's own metrics on --metrics-bind-address. reg
// takes its metrics.
func (o *Flags) Host(_ context.Context, reg prometheus.Registerer) (operator.Component, operator.Config, error) {
	o.cfg.Registerer = reg
	proxy, err := NewProxy(o.cfg)
	if err != nil {
		return operator.Component{}, operator.Config{}, err
	}
	certs, err := dynamiccertificates.NewDynamicServingContentFromFiles("serving-cert", o.certFile, o.keyFile)
	if err != nil {
		return operator.Component{}, operator.Config{}, fmt.Errorf("--tls-cert-file: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", proxy)
	comp := operator.Component{Replica: []operator.Task{
		func(ctx context.Context) error {
			certs.Run(ctx, 1)
			return nil
		},
		func(ctx context.Context) error { return serveTLS(ctx, o.address, mux, &keyPairCache{src: certs}) },
	}}
	return comp, operator.Config{Addresses: []operator.Address{{Flag: "metrics-bind-address", Address: o.metricsAddress}}}, nil
}
