package testenv

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// pki holds the throw-away certificate authorities and keys of one environment.
type pki struct {
	caCert          *x509.Certificate
	caKey           crypto.Signer
	caPEM           []byte
	frontProxyCA    *x509.Certificate
	frontProxyCAKey crypto.Signer
}

// certFiles names a certificate and its key on disk.
type certFiles struct {
	Cert, Key string
}

func newPKI() (*pki, error) {
	caCert, caKey, err := selfSignedCA("kscale-testenv-ca")
	if err != nil {
		return nil, fmt.Errorf("creating cluster CA: %w", err)
	}
	fpCert, fpKey, err := selfSignedCA("kscale-testenv-front-proxy-ca")
	if err != nil {
		return nil, fmt.Errorf("creating front-proxy CA: %w", err)
	}
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caCert.Raw})
	return &pki{caCert: caCert, caKey: caKey, caPEM: caPEM, frontProxyCA: fpCert, frontProxyCAKey: fpKey}, nil
}

func newKey() (*ecdsa.PrivateKey, error) {
	return ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
}

func serial() (*big.Int, error) {
	return rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 126))
}

func selfSignedCA(name string) (*x509.Certificate, crypto.Signer, error) {
	key, err := newKey()
	if err != nil {
		return nil, nil, err
	}
	sn, err := serial()
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          sn,
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	return cert, key, err
}

// certRequest describes a leaf certificate to issue.
type certRequest struct {
	commonName string
	orgs       []string
	dnsNames   []string
	ips        []net.IP
	client     bool
}

// issue signs a leaf certificate with the given CA and writes it and its key
// as PEM files named base.crt and base.key in dir.
func issue(ca *x509.Certificate, caKey crypto.Signer, req certRequest, dir, base string) (certFiles, error) {
	key, err := newKey()
	if err != nil {
		return certFiles{}, err
	}
	sn, err := serial()
	if err != nil {
		return certFiles{}, err
	}
	usage := x509.ExtKeyUsageServerAuth
	if req.client {
		usage = x509.ExtKeyUsageClientAuth
	}
	tmpl := &x509.Certificate{
		SerialNumber: sn,
		Subject:      pkix.Name{CommonName: req.commonName, Organization: req.orgs},
		DNSNames:     req.dnsNames,
		IPAddresses:  req.ips,
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{usage},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, key.Public(), caKey)
	if err != nil {
		return certFiles{}, fmt.Errorf("signing certificate %s: %w", base, err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return certFiles{}, err
	}
	files := certFiles{Cert: filepath.Join(dir, base+".crt"), Key: filepath.Join(dir, base+".key")}
	if err := writePEM(files.Cert, "CERTIFICATE", der); err != nil {
		return certFiles{}, err
	}
	return files, writePEM(files.Key, "PRIVATE KEY", keyDER)
}

// writeServiceAccountKey writes an RSA key pair for signing service account
// tokens and returns the private and public key paths.
func writeServiceAccountKey(dir string) (private, public string, err error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return "", "", fmt.Errorf("generating service account key: %w", err)
	}
	private = filepath.Join(dir, "sa.key")
	public = filepath.Join(dir, "sa.pub")
	if err := writePEM(private, "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(key)); err != nil {
		return "", "", err
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return "", "", err
	}
	return private, public, writePEM(public, "PUBLIC KEY", pubDER)
}

func writePEM(path, blockType string, der []byte) error {
	data := pem.EncodeToMemory(&pem.Block{Type: blockType, Bytes: der})
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

func writeCertPEM(path string, cert *x509.Certificate) error {
	return writePEM(path, "CERTIFICATE", cert.Raw)
}
