package scrape

import (
	"bytes"
	"compress/gzip"
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/kscale/kscale/internal/custommetrics/credentials"
	"github.com/kscale/kscale/internal/custommetrics/testpki"
	"github.com/kscale/kscale/internal/metricsfilter"
	"github.com/kscale/kscale/internal/metricsfilter/testbody"
)

// BenchmarkScrapeMetricsFilter scrapes the generated 3 MB kube-apiserver
// body as the provider does (TLS 1.3, gzip, one kept connection), once
// from the kube-apiserver directly and once as the metrics-filter sidecar
// answers it (only apiserver_request_total). The servers send bodies
// compressed in advance, so ns/op is the provider's scrape CPU plus the
// in-process server's TLS writes; wire-B/op is the compressed body moved.
func BenchmarkScrapeMetricsFilter(b *testing.B) {
	full := testbody.Body(0)
	f, err := metricsfilter.New([]string{testbody.RequestTotal})
	if err != nil {
		b.Fatal(err)
	}
	var filtered bytes.Buffer
	if _, err := f.Copy(&filtered, bytes.NewReader(full)); err != nil {
		b.Fatal(err)
	}
	ca := testpki.NewCA(b, "ca")
	cert := ca.Serving(b, []string{ServerName}, nil)
	creds := staticCreds{creds: credentials.Credentials{Token: "T", CAs: ca.Pool(), CAFingerprint: "x"}}
	for _, tc := range []struct {
		name string
		body []byte
	}{{"direct", full}, {"filtered", filtered.Bytes()}} {
		b.Run(tc.name, func(b *testing.B) {
			gz := gzipped(b, tc.body)
			var moved atomic.Int64
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Encoding", "gzip")
				n, _ := w.Write(gz)
				moved.Add(int64(n))
			}))
			srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
			srv.StartTLS()
			b.Cleanup(srv.Close)
			tgt, port := targetFor(b, srv)
			c, err := NewClient(ClientConfig{Credentials: creds, Port: port})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Scrape(b.Context(), tgt); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(moved.Load())/float64(b.N), "wire-B/op")
			b.ReportMetric(float64(len(tc.body)), "body-B/op")
		})
	}
}

func gzipped(b *testing.B, body []byte) []byte {
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	if _, err := zw.Write(body); err != nil {
		b.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		b.Fatal(err)
	}
	return out.Bytes()
}
