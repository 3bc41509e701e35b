package admission

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// writeSelfSigned writes a self-signed certificate with the given common
// name and its key, and sets both files' modification time to mod.
func writeSelfSigned(t *testing.T, dir, cn string, mod time.Time) (string, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	for path, block := range map[string]*pem.Block{certFile: {Type: "CERTIFICATE", Bytes: der}, keyFile: {Type: "EC PRIVATE KEY", Bytes: keyDER}} {
		if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	return certFile, keyFile
}

func commonName(t *testing.T, r *certReloader) string {
	t.Helper()
	c, err := r.get(nil)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(c.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	return leaf.Subject.CommonName
}

func TestCertReloader(t *testing.T) {
	for _, reload := range []bool{true, false} {
		dir := t.TempDir()
		t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		certFile, keyFile := writeSelfSigned(t, dir, "first", t0)
		r, err := newCertReloader(certFile, keyFile, reload)
		if err != nil {
			t.Fatal(err)
		}
		writeSelfSigned(t, dir, "second", t0.Add(time.Minute))
		want := map[bool]string{true: "second", false: "first"}[reload]
		if got := commonName(t, r); got != want {
			t.Errorf("reload=%v: serving %q after rotation, want %q", reload, got, want)
		}
		// A broken file keeps the last good certificate.
		if err := os.WriteFile(keyFile, []byte("garbage"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(keyFile, t0.Add(2*time.Minute), t0.Add(2*time.Minute)); err != nil {
			t.Fatal(err)
		}
		if got := commonName(t, r); got != want {
			t.Errorf("reload=%v: serving %q after a broken rotation, want %q", reload, got, want)
		}
	}
	if _, err := newCertReloader("/nonexistent/tls.crt", "/nonexistent/tls.key", true); err == nil {
		t.Error("missing files must fail")
	}
}
