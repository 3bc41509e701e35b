// Package testpki issues throw-away certificate authorities and serving and
// client certificates for tests.
package testpki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// CA is a certificate authority.
type CA struct {
	// Cert is the CA certificate.
	Cert *x509.Certificate
	// PEM is Cert in PEM form.
	PEM []byte
	key *ecdsa.PrivateKey
}

// NewCA creates a self-signed CA.
func NewCA(tb testing.TB, name string) *CA {
	tb.Helper()
	key := newKey(tb)
	tmpl := &x509.Certificate{
		SerialNumber: serial(tb), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		tb.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		tb.Fatal(err)
	}
	return &CA{Cert: cert, PEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), key: key}
}

// Pool returns a pool holding only this CA.
func (c *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(c.Cert)
	return p
}

// Serving issues a server certificate for the DNS names and IPs.
func (c *CA) Serving(tb testing.TB, dnsNames []string, ips []net.IP) tls.Certificate {
	tb.Helper()
	certPEM, keyPEM := c.ServingPEM(tb, dnsNames, ips)
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		tb.Fatal(err)
	}
	return pair
}

// ServingPEM issues a server certificate and returns it and its key as PEM.
func (c *CA) ServingPEM(tb testing.TB, dnsNames []string, ips []net.IP) (certPEM, keyPEM []byte) {
	tb.Helper()
	return c.issuePEM(tb, &x509.Certificate{Subject: pkix.Name{CommonName: "server"}, DNSNames: dnsNames, IPAddresses: ips,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
}

// ClientPEM issues a client certificate for mutual TLS with the common
// name and returns it and its key as PEM.
func (c *CA) ClientPEM(tb testing.TB, commonName string) (certPEM, keyPEM []byte) {
	tb.Helper()
	return c.issuePEM(tb, &x509.Certificate{Subject: pkix.Name{CommonName: commonName},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
}

// issuePEM signs tmpl (subject, names and extended key usage set) with a
// new key, valid for a day.
func (c *CA) issuePEM(tb testing.TB, tmpl *x509.Certificate) (certPEM, keyPEM []byte) {
	tb.Helper()
	key := newKey(tb)
	tmpl.SerialNumber = serial(tb)
	tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(24*time.Hour)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, c.Cert, key.Public(), c.key)
	if err != nil {
		tb.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		tb.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})
}

func newKey(tb testing.TB) *ecdsa.PrivateKey {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	return key
}

func serial(tb testing.TB) *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// WriteFile writes data (a certificate or key) to dir/name, readable by
// the owner only, and returns the path.
func WriteFile(tb testing.TB, dir, name string, data []byte) string {
	tb.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}

// Files are the PEM files WriteServing writes.
type Files struct {
	// CA, Cert and Key are the paths of the CA certificate, the serving
	// certificate and its key.
	CA, Cert, Key string
}

// WriteServing issues a new CA and a serving certificate for the DNS names
// and IPs and writes the three as PEM files in a fresh temporary directory.
func WriteServing(tb testing.TB, dnsNames []string, ips []net.IP) Files {
	tb.Helper()
	ca := NewCA(tb, "test-ca")
	certPEM, keyPEM := ca.ServingPEM(tb, dnsNames, ips)
	dir := tb.TempDir()
	return Files{CA: WriteFile(tb, dir, "ca.crt", ca.PEM), Cert: WriteFile(tb, dir, "tls.crt", certPEM), Key: WriteFile(tb, dir, "tls.key", keyPEM)}
}
