package scrape

import (
	"compress/gzip"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	neturl "net/url"
	"strconv"
	"sync"
	"syscall"
	"time"

	"k8s.io/utils/clock"

	"github.com/kscale/kscale/internal/custommetrics/credentials"
	"github.com/kscale/kscale/internal/custommetrics/discovery"
	"github.com/kscale/kscale/internal/custommetrics/parse"
)

// ServerName is the TLS server name every kube-apiserver certificate carries.
const ServerName = "kube-apiserver"

// DefaultMaxBodyBytes caps a decompressed body: 20 MiB.
const DefaultMaxBodyBytes = 20 << 20

// drainLimit bounds how much of an unread body is drained for connection reuse.
const drainLimit = 4 << 20

// ErrBodyTooLarge reports a body above the cap; no partial sum is returned.
var ErrBodyTooLarge = errors.New("metrics body exceeds the size cap")

// StatusError reports a response outside 2xx.
type StatusError struct {
	// Code is the HTTP status code.
	Code int
}

// Error names the status.
func (e *StatusError) Error() string {
	return fmt.Sprintf("unexpected HTTP status %d %s", e.Code, http.StatusText(e.Code))
}

// Credentials looks up a namespace's scrape credentials.
type Credentials interface {
	Lookup(namespace string) (credentials.Credentials, error)
}

// ClientConfig configures a Client.
type ClientConfig struct {
	// Credentials supplies token and CAs per namespace.
	Credentials Credentials
	// Port is the kube-apiserver port on the pod IP; default 443.
	Port int
	// Path is the metrics path; default /metrics.
	Path string
	// MaxBodyBytes caps the decompressed body; default 20 MiB.
	MaxBodyBytes int64
	// IdleConnTimeout keeps connections for reuse; set it above the scrape period. Default 90s.
	IdleConnTimeout time.Duration
	// Metric is the counter to sum; default apiserver_request_total.
	Metric string
	// Costs, when set, also sums the counter weighted by request cost.
	Costs parse.Costs
	// NoFilter scrapes the kube-apiserver even where a pod has a
	// metrics-filter sidecar (a container port named discovery.FilterPortName).
	NoFilter bool
	// Clock stamps samples; default the real clock.
	Clock clock.PassiveClock
}

// Default fills unset fields.
func (c *ClientConfig) Default() {
	if c.Port == 0 {
		c.Port = 443
	}
	if c.Path == "" {
		c.Path = "/metrics"
	}
	if c.MaxBodyBytes == 0 {
		c.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if c.IdleConnTimeout == 0 {
		c.IdleConnTimeout = 90 * time.Second
	}
	if c.Metric == "" {
		c.Metric = parse.RequestTotal
	}
	if c.Clock == nil {
		c.Clock = clock.RealClock{}
	}
}

// Validate reports the first invalid field.
func (c *ClientConfig) Validate() error {
	switch {
	case c.Credentials == nil:
		return errors.New("credentials: required")
	case c.Port < 1 || c.Port > 65535:
		return fmt.Errorf("port: %d is not a TCP port", c.Port)
	case c.MaxBodyBytes < 1:
		return errors.New("maxBodyBytes: must be positive")
	}
	return nil
}

// Result is one successful scrape.
type Result struct {
	// Value is the counter's sum over all series.
	Value float64
	// Weighted is the sum weighted by request cost (zero without Costs).
	Weighted float64
	// At is when the response headers arrived, the moment the value describes.
	At time.Time
	// Series is how many series were summed.
	Series int
	// Filtered says the body came from the pod's metrics-filter sidecar.
	Filtered bool
}

type transportEntry struct {
	fingerprint string
	transport   *http.Transport
}

// Client scrapes targets. It is safe for concurrent use.
type Client struct {
	cfg     ClientConfig
	parsers sync.Pool
	gzips   sync.Pool

	mu         sync.Mutex
	transports map[string]transportEntry
}

// NewClient returns a Client.
func NewClient(cfg ClientConfig) (*Client, error) {
	cfg.Default()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("validating scrape client config: %w", err)
	}
	c := &Client{cfg: cfg, transports: map[string]transportEntry{}}
	c.parsers.New = func() any { return parse.NewParser(cfg.Metric, parse.Options{StopAfterGroup: true, Costs: cfg.Costs}) }
	return c, nil
}

// Scrape fetches and sums the target's counter. ctx bounds the whole scrape.
// A pod with a metrics-filter sidecar is asked through it for the counter's
// family only; when the sidecar refuses the connection or does not know the
// path or query (404, 405, 501), the kube-apiserver is asked directly.
func (c *Client) Scrape(ctx context.Context, t discovery.Target) (Result, error) {
	creds, err := c.cfg.Credentials.Lookup(t.Key.Namespace)
	if err != nil {
		return Result{}, fmt.Errorf("looking up credentials: %w", err)
	}
	if t.FilterPort != 0 && !c.cfg.NoFilter {
		url := "https://" + net.JoinHostPort(t.IP, strconv.Itoa(int(t.FilterPort))) + c.cfg.Path + "?name=" + neturl.QueryEscape(c.cfg.Metric)
		res, err := c.scrape(ctx, t, creds, url)
		if err == nil || !filterMissing(err) {
			res.Filtered = err == nil
			return res, err
		}
	}
	return c.scrape(ctx, t, creds, "https://"+net.JoinHostPort(t.IP, strconv.Itoa(c.cfg.Port))+c.cfg.Path)
}

// filterMissing reports a scrape error meaning the sidecar is not there
// (yet) or does not filter, so the kube-apiserver is asked instead.
func filterMissing(err error) bool {
	var status *StatusError
	if errors.As(err, &status) {
		return status.Code == http.StatusNotFound || status.Code == http.StatusMethodNotAllowed || status.Code == http.StatusNotImplemented
	}
	return errors.Is(err, syscall.ECONNREFUSED)
}

// scrape fetches url and sums the counter.
func (c *Client) scrape(ctx context.Context, t discovery.Target, creds credentials.Credentials, url string) (Result, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return Result{}, fmt.Errorf("building request for %s: %w", url, err)
	}
	req.Header.Set("Authorization", "Bearer "+string(creds.Token))
	req.Header.Set("Accept-Encoding", "gzip")
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := c.transport(t.Key.Namespace, creds).RoundTrip(req)
	if err != nil {
		return Result{}, fmt.Errorf("requesting %s: %w", url, err)
	}
	at := c.cfg.Clock.Now()
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		return Result{}, fmt.Errorf("requesting %s: %w", url, &StatusError{Code: resp.StatusCode})
	}
	sum, err := c.parseBody(resp)
	// The parser stops after the counter's group. Draining the rest of the
	// raw (usually compressed) body lets the connection be reused, which is
	// far cheaper than a new TLS handshake at the next scrape.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, drainLimit))
	if err != nil {
		return Result{}, fmt.Errorf("reading metrics from %s: %w", url, err)
	}
	return Result{Value: sum.Sum, Weighted: sum.Weighted, Series: sum.Series, At: at}, nil
}

func (c *Client) parseBody(resp *http.Response) (parse.Result, error) {
	var body io.Reader = resp.Body
	if resp.Header.Get("Content-Encoding") == "gzip" {
		zr, _ := c.gzips.Get().(*gzip.Reader)
		if zr == nil {
			zr = new(gzip.Reader)
		}
		if err := zr.Reset(resp.Body); err != nil {
			return parse.Result{}, fmt.Errorf("opening gzip body: %w", err)
		}
		defer c.gzips.Put(zr)
		body = zr
	}
	p, _ := c.parsers.Get().(*parse.Parser)
	defer c.parsers.Put(p)
	return p.Sum(&capReader{r: body, left: c.cfg.MaxBodyBytes})
}

// transport returns the namespace's transport, rebuilding it when its CA set changed.
func (c *Client) transport(namespace string, creds credentials.Credentials) *http.Transport {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.transports[namespace]; ok && e.fingerprint == creds.CAFingerprint {
		return e.transport
	}
	if e, ok := c.transports[namespace]; ok {
		e.transport.CloseIdleConnections()
	}
	tr := &http.Transport{
		TLSClientConfig: &tls.Config{
			RootCAs:    creds.CAs,
			ServerName: ServerName,
			MinVersion: tls.VersionTLS13,
		},
		DisableCompression:  true, // we ask for gzip ourselves and decompress explicitly
		MaxIdleConnsPerHost: 1,
		IdleConnTimeout:     c.cfg.IdleConnTimeout,
		TLSHandshakeTimeout: 10 * time.Second,
		ForceAttemptHTTP2:   false,
	}
	c.transports[namespace] = transportEntry{fingerprint: creds.CAFingerprint, transport: tr}
	return tr
}

// Forget closes and drops the transport of a namespace without targets.
func (c *Client) Forget(namespace string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.transports[namespace]; ok {
		e.transport.CloseIdleConnections()
		delete(c.transports, namespace)
	}
}

// capReader fails with ErrBodyTooLarge once more than left bytes were read.
type capReader struct {
	r    io.Reader
	left int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left < 0 {
		return 0, ErrBodyTooLarge
	}
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if c.left < 0 {
		return 0, ErrBodyTooLarge
	}
	return n, err
}
