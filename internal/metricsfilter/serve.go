package metricsfilter

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"k8s.io/klog/v2"
)

// serveTLS serves h over TLS on addr (--secure-address) until ctx ends.
func serveTLS(ctx context.Context, addr string, h http.Handler, certs *keyPairCache) error {
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
