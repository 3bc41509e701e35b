package scrape

import (
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/kscale/kscale/internal/custommetrics/credentials"
	"github.com/kscale/kscale/internal/custommetrics/testpki"
)

// TestClientMetricsFilter checks the choice between a pod's metrics-filter
// sidecar and its kube-apiserver, and the fallback.
func TestClientMetricsFilter(t *testing.T) {
	ca := testpki.NewCA(t, "ca")
	cert := ca.Serving(t, []string{ServerName}, nil)
	creds := staticCreds{creds: credentials.Credentials{Token: "T", CAs: ca.Pool(), CAFingerprint: "x"}}
	direct, _ := fakeAPIServer(t, cert, 0, "T", []byte(body))
	closed := closedPort(t)
	tests := []struct {
		name         string
		sidecar      http.HandlerFunc // nil: nothing listens on the filter port
		noFilter     bool
		wantFiltered bool
		wantValue    float64
		wantStatus   int
	}{
		{name: "sidecar answers the named family", sidecar: func(w http.ResponseWriter, r *http.Request) {
			if r.URL.RawQuery != "name=apiserver_request_total" || r.Header.Get("Authorization") != "Bearer T" {
				http.Error(w, "bad request "+r.URL.RawQuery, http.StatusBadRequest)
				return
			}
			_, _ = w.Write([]byte("apiserver_request_total 7\n"))
		}, wantFiltered: true, wantValue: 7},
		{name: "no sidecar listening: kube-apiserver", wantValue: 31},
		{name: "sidecar without the path: kube-apiserver", sidecar: func(w http.ResponseWriter, _ *http.Request) { http.NotFound(w, nil) }, wantValue: 31},
		{name: "sidecar's 401 is the scrape's", sidecar: func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
		}, wantStatus: http.StatusUnauthorized},
		{name: "sidecar not used when turned off", sidecar: func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte("apiserver_request_total 7\n"))
		}, noFilter: true, wantValue: 31},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tgt, port := targetFor(t, direct)
			tgt.FilterPort = int32(closed)
			if tc.sidecar != nil {
				sc := httptest.NewUnstartedServer(tc.sidecar)
				sc.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
				sc.StartTLS()
				t.Cleanup(sc.Close)
				_, p := targetFor(t, sc)
				tgt.FilterPort = int32(p)
			}
			c, err := NewClient(ClientConfig{Credentials: creds, Port: port, NoFilter: tc.noFilter})
			if err != nil {
				t.Fatal(err)
			}
			res, err := c.Scrape(t.Context(), tgt)
			if tc.wantStatus != 0 {
				var se *StatusError
				if !errors.As(err, &se) || se.Code != tc.wantStatus {
					t.Fatalf("Scrape() error = %v, want HTTP %d", err, tc.wantStatus)
				}
				return
			}
			if err != nil || res.Value != tc.wantValue || res.Filtered != tc.wantFiltered {
				t.Fatalf("Scrape() = %+v, %v; want value %g, filtered %v", res, err, tc.wantValue, tc.wantFiltered)
			}
		})
	}
}

// closedPort returns a loopback port nothing listens on.
func closedPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, p, _ := net.SplitHostPort(l.Addr().String())
	_ = l.Close()
	n, _ := strconv.Atoi(p)
	return n
}
