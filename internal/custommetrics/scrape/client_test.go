package scrape

import (
	"bytes"
	"compress/gzip"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/kscale/kscale/internal/custommetrics/credentials"
	"github.com/kscale/kscale/internal/custommetrics/discovery"
	"github.com/kscale/kscale/internal/custommetrics/parse"
	"github.com/kscale/kscale/internal/custommetrics/testpki"
)

const body = "# HELP apiserver_request_total x\napiserver_request_total{code=\"200\"} 15\napiserver_request_total{code=\"201\"} 16\n"

type staticCreds struct {
	creds credentials.Credentials
	err   error
}

func (s staticCreds) Lookup(string) (credentials.Credentials, error) { return s.creds, s.err }

// fakeAPIServer serves body behind TLS with the given config and a bearer token.
func fakeAPIServer(t *testing.T, cert tls.Certificate, maxTLS uint16, token string, payload []byte) (*httptest.Server, *int) {
	t.Helper()
	var gzipped int
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			gzipped++
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			_, _ = zw.Write(payload)
			_ = zw.Close()
			return
		}
		_, _ = w.Write(payload)
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MaxVersion: maxTLS}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, &gzipped
}

func targetFor(t testing.TB, srv *httptest.Server) (discovery.Target, int) {
	t.Helper()
	host, port, err := net.SplitHostPort(srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	p, _ := strconv.Atoi(port)
	return discovery.Target{Key: types.NamespacedName{Namespace: "shoot--p--a", Name: "kapi-1"}, UID: "u", IP: host}, p
}

// TestClientTLSAndAuth is scenario 3 plus the gzip half of scenario 2.
func TestClientTLSAndAuth(t *testing.T) {
	caA, caB := testpki.NewCA(t, "ca-a"), testpki.NewCA(t, "ca-b")
	certA := caA.Serving(t, []string{ServerName}, nil)
	certB := caB.Serving(t, []string{ServerName}, nil)
	tests := []struct {
		name    string
		cert    tls.Certificate
		maxTLS  uint16
		token   credentials.Token
		wantErr func(error) bool
	}{
		{name: "CA-A and token T by IP", cert: certA, token: "T"},
		{name: "wrong token", cert: certA, token: "wrong", wantErr: func(err error) bool {
			var se *StatusError
			return errors.As(err, &se) && se.Code == http.StatusUnauthorized && !strings.Contains(err.Error(), "wrong")
		}},
		{name: "certificate of CA-B", cert: certB, token: "T", wantErr: isUnknownAuthority},
		{name: "server offers only TLS 1.2", cert: certA, maxTLS: tls.VersionTLS12, token: "T", wantErr: func(err error) bool {
			return err != nil && strings.Contains(err.Error(), "protocol version")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, gzipped := fakeAPIServer(t, tt.cert, tt.maxTLS, "T", []byte(body))
			tgt, port := targetFor(t, srv)
			c := newClient(t, staticCreds{creds: credentials.Credentials{Token: tt.token, CAs: caA.Pool(), CAFingerprint: "a"}}, port, 0)
			res, err := c.Scrape(t.Context(), tgt)
			if tt.wantErr != nil {
				if !tt.wantErr(err) {
					t.Fatalf("Scrape() error = %v, want a matching error", err)
				}
				return
			}
			if err != nil || res.Value != 31 || res.Series != 2 {
				t.Fatalf("Scrape() = %+v, %v; want 31 over 2 series", res, err)
			}
			if *gzipped != 1 {
				t.Fatalf("gzip not negotiated")
			}
		})
	}
}

func isUnknownAuthority(err error) bool {
	var ua x509.UnknownAuthorityError
	return errors.As(err, &ua)
}

func TestClientGzipAndPlainAgree(t *testing.T) {
	ca := testpki.NewCA(t, "ca")
	plain := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(body)) // ignores Accept-Encoding
	}))
	plain.TLS = &tls.Config{Certificates: []tls.Certificate{ca.Serving(t, []string{ServerName}, nil)}}
	plain.StartTLS()
	t.Cleanup(plain.Close)
	gz, _ := fakeAPIServer(t, ca.Serving(t, []string{ServerName}, nil), 0, "T", []byte(body))
	creds := staticCreds{creds: credentials.Credentials{Token: "T", CAs: ca.Pool(), CAFingerprint: "x"}}
	var sums []float64
	for _, srv := range []*httptest.Server{plain, gz} {
		tgt, port := targetFor(t, srv)
		res, err := newClient(t, creds, port, 0).Scrape(t.Context(), tgt)
		if err != nil {
			t.Fatal(err)
		}
		sums = append(sums, res.Value)
	}
	if sums[0] != 31 || sums[1] != 31 {
		t.Fatalf("plain and gzip sums = %v, want 31 both", sums)
	}
}

// TestClientSizeCap is the cap half of scenario 2: above the cap the scrape
// fails, for plain and gzip bodies alike, with no partial sum.
func TestClientSizeCap(t *testing.T) {
	ca := testpki.NewCA(t, "ca")
	var big bytes.Buffer
	for big.Len() <= 2<<20 {
		big.WriteString("apiserver_request_total{code=\"200\",resource=\"pods\",verb=\"LIST\"} 1\n")
	}
	for _, gzipOn := range []bool{true, false} {
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			if gzipOn {
				w.Header().Set("Content-Encoding", "gzip")
				zw := gzip.NewWriter(w)
				_, _ = zw.Write(big.Bytes())
				_ = zw.Close()
				return
			}
			_, _ = w.Write(big.Bytes())
		}))
		srv.TLS = &tls.Config{Certificates: []tls.Certificate{ca.Serving(t, []string{ServerName}, nil)}}
		srv.StartTLS()
		t.Cleanup(srv.Close)
		tgt, port := targetFor(t, srv)
		creds := staticCreds{creds: credentials.Credentials{Token: "T", CAs: ca.Pool(), CAFingerprint: "x"}}
		res, err := newClient(t, creds, port, 2<<20).Scrape(t.Context(), tgt)
		if !errors.Is(err, ErrBodyTooLarge) || res != (Result{}) {
			t.Fatalf("gzip=%v: Scrape() = %+v, %v; want ErrBodyTooLarge and no result", gzipOn, res, err)
		}
		res, err = newClient(t, creds, port, int64(big.Len())).Scrape(t.Context(), tgt)
		if err != nil || res.Series == 0 {
			t.Fatalf("gzip=%v: body exactly at the cap: %+v, %v", gzipOn, res, err)
		}
	}
}

func TestClientMissingCredentials(t *testing.T) {
	missing := &credentials.MissingError{Namespace: "shoot--p--a", What: "secret x key token"}
	c := newClient(t, staticCreds{err: missing}, 443, 0)
	_, err := c.Scrape(t.Context(), discovery.Target{Key: types.NamespacedName{Namespace: "shoot--p--a", Name: "p"}, IP: "10.0.0.1"})
	if !credentials.IsMissing(err) {
		t.Fatalf("Scrape() error = %v, want a missing-credentials error", err)
	}
}

func TestClientMalformedBody(t *testing.T) {
	ca := testpki.NewCA(t, "ca")
	srv, _ := fakeAPIServer(t, ca.Serving(t, []string{ServerName}, nil), 0, "T", []byte("apiserver_request_total{code=\"200\" 15\n"))
	tgt, port := targetFor(t, srv)
	_, err := newClient(t, staticCreds{creds: credentials.Credentials{Token: "T", CAs: ca.Pool()}}, port, 0).Scrape(t.Context(), tgt)
	if !parse.IsSyntaxError(err) || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("Scrape() error = %v, want a syntax error naming line 1", err)
	}
}

func newClient(t *testing.T, creds Credentials, port int, maxBody int64) *Client {
	t.Helper()
	c, err := NewClient(ClientConfig{Credentials: creds, Port: port, MaxBodyBytes: maxBody})
	if err != nil {
		t.Fatal(err)
	}
	return c
}
