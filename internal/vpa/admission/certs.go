package admission

import (
	"crypto/tls"
	"fmt"
	"os"
	"sync"
	"time"
)

// Certificates supplies the webhook's serving certificate and the CA
// bundle registered with it: files (--tls-cert-file, --tls-private-key,
// --client-ca-file) by default, or certificates that manage themselves.
type Certificates interface {
	// GetCertificate returns the certificate to serve; it fits
	// tls.Config.GetCertificate.
	GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error)
	// CABundle returns the PEM CA bundle the API server must trust.
	CABundle() ([]byte, error)
}

// fileCertificates serves the key pair from files and reads the CA bundle
// from --client-ca-file.
type fileCertificates struct {
	*certReloader
	caFile string
}

// GetCertificate returns the current key pair from the files.
func (f *fileCertificates) GetCertificate(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	return f.get(hello)
}

// CABundle reads --client-ca-file.
func (f *fileCertificates) CABundle() ([]byte, error) {
	ca, err := os.ReadFile(f.caFile)
	if err != nil {
		return nil, fmt.Errorf("reading --client-ca-file: %w", err)
	}
	return ca, nil
}

// certReloader serves the key pair from two files and, with reload set,
// reloads it when either file's modification time changes, so rotated
// certificates are picked up without a restart.
type certReloader struct {
	certFile, keyFile string
	reload            bool

	mu      sync.Mutex
	cert    *tls.Certificate
	certMod time.Time
	keyMod  time.Time
}

func newCertReloader(certFile, keyFile string, reload bool) (*certReloader, error) {
	r := &certReloader{certFile: certFile, keyFile: keyFile, reload: reload}
	if _, err := r.get(nil); err != nil {
		return nil, err
	}
	return r, nil
}

// get returns the current certificate, reloading changed files. On a failed
// reload it keeps serving the previous certificate.
func (r *certReloader) get(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cert != nil && !r.reload {
		return r.cert, nil
	}
	certMod, err1 := modTime(r.certFile)
	keyMod, err2 := modTime(r.keyFile)
	if r.cert != nil && (err1 != nil || err2 != nil || (certMod.Equal(r.certMod) && keyMod.Equal(r.keyMod))) {
		return r.cert, nil
	}
	cert, err := tls.LoadX509KeyPair(r.certFile, r.keyFile)
	if err != nil {
		if r.cert != nil {
			return r.cert, nil
		}
		return nil, fmt.Errorf("loading serving certificate %s and key %s: %w", r.certFile, r.keyFile, err)
	}
	r.cert, r.certMod, r.keyMod = &cert, certMod, keyMod
	return r.cert, nil
}

func modTime(path string) (time.Time, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return time.Time{}, err
	}
	return fi.ModTime(), nil
}
