package metricsfilter

import (
	"bytes"
	"compress/gzip"
	"crypto/tls"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/kscale/kscale/internal/custommetrics/testpki"
	"github.com/kscale/kscale/internal/metricsfilter/testbody"
)

const bearer = "Bearer scrape-bearer"

// target is a fake kube-apiserver /metrics over TLS, requiring the bearer.
func target(t *testing.T, body []byte) (*url.URL, *testpki.CA) {
	t.Helper()
	ca := testpki.NewCA(t, "target-ca")
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Header.Get("Authorization") != bearer:
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
		case r.URL.Query().Has("name"):
			http.Error(w, "the target must not see the filter's query", http.StatusTeapot)
		case r.Header.Get("Accept") != textFormat:
			http.Error(w, "want the text format", http.StatusNotAcceptable)
		default:
			w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
			_, _ = w.Write(body)
		}
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{ca.Serving(t, []string{"kube-apiserver"}, nil)}, MinVersion: tls.VersionTLS13}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	u, err := url.Parse(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	return u, ca
}

func newTestProxy(t *testing.T, u *url.URL, ca *testpki.CA) *httptest.Server {
	t.Helper()
	srv, _ := newTestProxyMetrics(t, u, ca)
	return srv
}

func newTestProxyMetrics(t *testing.T, u *url.URL, ca *testpki.CA) (*httptest.Server, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewRegistry()
	p, err := NewProxy(Config{Target: u, TLS: &tls.Config{RootCAs: ca.Pool(), ServerName: "kube-apiserver", MinVersion: tls.VersionTLS12}, Registerer: reg})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return srv, reg
}

func get(t *testing.T, rawURL, auth string, gz bool) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, rawURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if gz {
		req.Header.Set("Accept-Encoding", "gzip")
	}
	resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var r io.Reader = resp.Body
	if resp.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	}
	data, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, data
}

func TestProxy(t *testing.T) {
	body := testbody.Body(0)
	u, ca := target(t, body)
	srv, reg := newTestProxyMetrics(t, u, ca)
	var want bytes.Buffer
	f, _ := New([]string{testbody.RequestTotal})
	if _, err := f.Copy(&want, bytes.NewReader(body)); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		query    string
		auth     string
		gzip     bool
		wantCode int
		wantBody []byte
	}{
		{"filtered", "?name=" + testbody.RequestTotal, bearer, false, 200, want.Bytes()},
		{"filtered gzip", "?name=" + testbody.RequestTotal, bearer, true, 200, want.Bytes()},
		{"name[] form", "?name%5B%5D=" + testbody.RequestTotal, bearer, true, 200, want.Bytes()},
		{"no name passes everything", "", bearer, true, 200, body},
		{"wrong bearer is the target's 401", "?name=" + testbody.RequestTotal, "Bearer wrong", false, 401, []byte("Unauthorized\n")},
		{"no bearer is the target's 401", "", "", false, 401, []byte("Unauthorized\n")},
		{"bad name is 400", "?name=a-b", bearer, false, 400, []byte("name \"a-b\" is not a metric name\n")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, hdr, got := get(t, srv.URL+"/metrics"+tc.query, tc.auth, tc.gzip)
			if code != tc.wantCode || !bytes.Equal(got, tc.wantBody) {
				t.Fatalf("HTTP %d with %d bytes, want %d with %d bytes (%.80q)", code, len(got), tc.wantCode, len(tc.wantBody), got)
			}
			if tc.gzip && code == 200 && hdr.Get("Content-Encoding") != "gzip" {
				t.Fatal("gzip asked for, not sent")
			}
			if code == 200 && !strings.HasPrefix(hdr.Get("Content-Type"), "text/plain; version=0.0.4") {
				t.Fatalf("Content-Type %q", hdr.Get("Content-Type"))
			}
		})
	}
	t.Run("own metrics count requests and bytes", func(t *testing.T) {
		want := `
# HELP kscale_metrics_filter_body_bytes_total Uncompressed /metrics body bytes read from the target (in) and written to callers (out).
# TYPE kscale_metrics_filter_body_bytes_total counter
kscale_metrics_filter_body_bytes_total{direction="in"} ` + strconv.Itoa(4*len(body)) + `
kscale_metrics_filter_body_bytes_total{direction="out"} ` + strconv.Itoa(3*want.Len()+len(body)) + `
# HELP kscale_metrics_filter_requests_total Requests answered, by HTTP status code.
# TYPE kscale_metrics_filter_requests_total counter
kscale_metrics_filter_requests_total{code="200"} 4
kscale_metrics_filter_requests_total{code="400"} 1
kscale_metrics_filter_requests_total{code="401"} 2
`
		if err := testutil.GatherAndCompare(reg, strings.NewReader(want)); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("HEAD has the header only", func(t *testing.T) {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodHead, srv.URL+"/metrics?name="+testbody.RequestTotal, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", bearer)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
			t.Fatalf("HEAD: HTTP %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	})
	t.Run("POST is 405", func(t *testing.T) {
		resp, err := http.Post(srv.URL+"/metrics", "text/plain", nil)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed {
			t.Fatalf("HTTP %d", resp.StatusCode)
		}
	})
}

// TestProxyVerifiesTarget checks the target's certificate is verified: a
// target signed by another CA is a 502, and the bearer is not sent to it.
func TestProxyVerifiesTarget(t *testing.T) {
	u, _ := target(t, []byte("x 1\n"))
	other := testpki.NewCA(t, "other-ca")
	srv := newTestProxy(t, u, other)
	if code, _, _ := get(t, srv.URL+"/metrics?name=x", bearer, false); code != http.StatusBadGateway {
		t.Fatalf("HTTP %d, want 502", code)
	}
}

// TestProxyAbortsBrokenStream checks a target that dies mid-body leaves the
// caller with a read error, never a short body that looks complete.
func TestProxyAbortsBrokenStream(t *testing.T) {
	ca := testpki.NewCA(t, "target-ca")
	tgt := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", "100000")
		_, _ = w.Write([]byte("apiserver_request_total 1\n"))
	}))
	tgt.TLS = &tls.Config{Certificates: []tls.Certificate{ca.Serving(t, []string{"kube-apiserver"}, nil)}, MinVersion: tls.VersionTLS13}
	tgt.StartTLS()
	t.Cleanup(tgt.Close)
	u, _ := url.Parse(tgt.URL + "/metrics")
	srv := newTestProxy(t, u, ca)
	resp, err := http.Get(srv.URL + "/metrics?name=apiserver_request_total")
	if err != nil {
		return // broken before the header arrived: as good
	}
	defer func() { _ = resp.Body.Close() }()
	if _, err := io.ReadAll(resp.Body); err == nil {
		t.Fatal("read the whole body without error; want the broken stream to show")
	}
}

func TestConfigValidate(t *testing.T) {
	plain, _ := url.Parse("http://127.0.0.1:8080/metrics")
	pool := testpki.NewCA(t, "ca").Pool()
	secure, _ := url.Parse("https://127.0.0.1/metrics")
	ftp, _ := url.Parse("ftp://x/metrics")
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Target: ftp}, "target"},
		{Config{Target: plain}, "target"},
		{Config{}, "target"},
		{Config{Target: secure}, "tls"},
		{Config{Target: secure, TLS: &tls.Config{MinVersion: tls.VersionTLS12}}, "tls"},
		{Config{Target: secure, TLS: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, Timeout: -1}, "timeout"},
		{Config{Target: secure, TLS: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}, "registerer"},
	} {
		if _, err := NewProxy(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewProxy(%+v) = %v, want an error on %s", tc.cfg, err, tc.want)
		}
	}
}
