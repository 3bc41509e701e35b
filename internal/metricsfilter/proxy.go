package metricsfilter

import (
	"compress/gzip"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/klog/v2"
)

// QueryName is the query parameter naming a selected family; QueryNameList
// is the same in the form Prometheus' client library takes (name[]).
const (
	QueryName     = "name"
	QueryNameList = "name[]"
)

// textFormat is the only format the filter reads, so it is the only one asked for.
const textFormat = "text/plain;version=0.0.4"

// Config configures a Proxy.
type Config struct {
	// Target is the kube-apiserver's metrics URL, e.g. https://127.0.0.1:443/metrics.
	Target *url.URL
	// TLS verifies the target; required, with RootCAs.
	TLS *tls.Config
	// Timeout bounds one request to the target; default 30s.
	Timeout time.Duration
	// Registerer receives the proxy's metrics; required.
	Registerer prometheus.Registerer
}

// Default fills unset fields.
func (c *Config) Default() {
	if c.Timeout == 0 {
		c.Timeout = 30 * time.Second
	}
}

// Validate reports the first invalid field.
func (c *Config) Validate() error {
	switch {
	case c.Target == nil || c.Target.Scheme != "https" || c.Target.Host == "":
		return errors.New("target: want an https URL (the caller's token is passed to it)")
	case c.TLS == nil || c.TLS.RootCAs == nil:
		return errors.New("tls: CAs to verify the target are required")
	case c.Timeout < 0:
		return errors.New("timeout: must not be negative")
	case c.Registerer == nil:
		return errors.New("registerer: required")
	}
	return nil
}

// Proxy serves /metrics?name=... for one target. It passes the caller's
// Authorization header to the target, so the target's own authentication
// and authorization decide; it never logs headers.
type Proxy struct {
	cfg     Config
	client  *http.Client
	metrics *metrics
	filters sync.Pool
	gzips   sync.Pool
}

// NewProxy returns a Proxy.
func NewProxy(cfg Config) (*Proxy, error) {
	cfg.Default()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("validating metrics filter config: %w", err)
	}
	tr := &http.Transport{
		TLSClientConfig:     cfg.TLS,
		DisableCompression:  true, // plain text over loopback is cheaper than gzip both ways
		MaxIdleConnsPerHost: 4,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second,
	}
	m, err := newMetrics(cfg.Registerer)
	if err != nil {
		return nil, err
	}
	return &Proxy{cfg: cfg, client: &http.Client{Transport: tr, Timeout: cfg.Timeout}, metrics: m}, nil
}

// ServeHTTP answers GET and HEAD with the target's metrics, only the named
// families when the query names any.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sw := &statusWriter{ResponseWriter: w}
	defer func() { p.metrics.requests.WithLabelValues(strconv.Itoa(sw.code())).Inc() }()
	p.serve(sw, r)
}

func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	q := r.URL.Query()
	names := append(q[QueryName], q[QueryNameList]...)
	var flt *Filter
	if len(names) > 0 {
		var err error
		if flt, err = p.filter(names); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		defer p.filters.Put(flt)
	}
	resp, err := p.fetch(r.Context(), r.Header.Get("Authorization"))
	if err != nil {
		klog.FromContext(r.Context()).Error(err, "Fetching target metrics failed", "target", p.cfg.Target.Redacted())
		http.Error(w, "fetching target metrics failed", http.StatusBadGateway)
		return
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		passStatus(w, resp)
		return
	}
	p.stream(w, r, resp, flt)
}

// filter returns a pooled filter for names, or an error naming a bad name.
func (p *Proxy) filter(names []string) (*Filter, error) {
	if f, _ := p.filters.Get().(*Filter); f != nil && f.reset(names) == nil {
		return f, nil
	}
	return New(names)
}

func (p *Proxy) fetch(ctx context.Context, auth string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.cfg.Target.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("building request: %w", err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	req.Header.Set("Accept", textFormat)
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("requesting target: %w", err)
	}
	return resp, nil
}

// passStatus relays a non-200 answer (401, 403, 5xx, ...) with a short body.
func passStatus(w http.ResponseWriter, resp *http.Response) {
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, io.LimitReader(resp.Body, 4<<10))
}

// stream writes the (filtered) body, gzipped when the caller accepts it. A
// failure after the header was sent aborts the connection, so the caller
// sees a broken response rather than a valid-looking partial one.
func (p *Proxy) stream(w http.ResponseWriter, r *http.Request, resp *http.Response, flt *Filter) {
	body := io.Reader(resp.Body)
	if resp.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			http.Error(w, "target sent a broken gzip body", http.StatusBadGateway)
			return
		}
		body = zr
	}
	w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
	var out io.Writer = w
	var zw *gzip.Writer
	if acceptsGzip(r) {
		w.Header().Set("Content-Encoding", "gzip")
		zw = p.gzipWriter(w)
		defer p.gzips.Put(zw)
		out = zw
	}
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	var st Stats
	var err error
	if flt != nil {
		st, err = flt.Copy(out, body)
	} else {
		st.In, err = io.Copy(out, body)
		st.Out = st.In
	}
	p.metrics.in.Add(float64(st.In))
	p.metrics.out.Add(float64(st.Out))
	if err == nil && zw != nil {
		err = zw.Close()
	}
	if err != nil {
		klog.FromContext(r.Context()).V(2).Info("Streaming metrics aborted", "target", p.cfg.Target.Redacted(), "err", err.Error())
		panic(http.ErrAbortHandler)
	}
}

func (p *Proxy) gzipWriter(w io.Writer) *gzip.Writer {
	if zw, _ := p.gzips.Get().(*gzip.Writer); zw != nil {
		zw.Reset(w)
		return zw
	}
	zw, _ := gzip.NewWriterLevel(w, gzip.BestSpeed)
	return zw
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.TrimSpace(enc) == "gzip" && strings.ReplaceAll(params, " ", "") != "q=0" {
			return true
		}
	}
	return false
}
