package cli

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kscale/kscale/deploy/vpa/crds"
	"github.com/kscale/kscale/internal/testenv"
)

func TestVPAAdmissionFlagDefaults(t *testing.T) {
	cmd := newVPAAdmissionCommand()
	expectDefaults(t, cmd.Flags().Lookup, map[string]string{
		"port":                         "8000",
		"status-lease-name":            "vpa-admission-controller",
		"max-allowed-cpu-boost":        "0",
		"status-lease-namespace":       "",
		"tls-cert-file":                "/etc/tls-certs/serverCert.pem",
		"tls-private-key":              "/etc/tls-certs/serverKey.pem",
		"client-ca-file":               "/etc/tls-certs/caCert.pem",
		"webhook-service":              "vpa-webhook",
		"webhook-timeout-seconds":      "30",
		"webhook-failure-policy-fail":  "false",
		"register-webhook":             "true",
		"register-by-url":              "false",
		"status-lease-update-interval": "10s",
		"min-tls-version":              "tls1_2",
		"kube-api-qps":                 "50",
		"kube-api-burst":               "100",
	})
}

func TestVPAAdmissionBadFlags(t *testing.T) {
	certs := writeWebhookCerts(t)
	tls := []string{"--tls-cert-file=" + certs.cert, "--tls-private-key=" + certs.key, "--client-ca-file=" + certs.ca}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--tls-cert-file="}, "--tls-cert-file"},
		{append([]string{"--min-tls-version=tls1_0"}, tls...), "--min-tls-version"},
		{append([]string{"--webhook-timeout-seconds=31"}, tls...), "--webhook-timeout-seconds"},
		{append([]string{"--register-by-url"}, tls...), "--webhook-address"},
		{[]string{"--tls-cert-file=" + certs.cert, "--tls-private-key=" + certs.key, "--client-ca-file="}, "--client-ca-file"},
		{append([]string{"--status-lease-update-interval=0s"}, tls...), "--status-lease-update-interval"},
		{append([]string{"--tls-ciphers=TLS_RSA_WITH_RC4_128_SHA"}, tls...), "--tls-ciphers"},
		{append([]string{"--webhook-labels=novalue"}, tls...), "--webhook-labels"},
		{append([]string{"--self-signed-cert-secret=tls"}, tls...), "--self-signed-cert-secret: excludes --tls-cert-file"},
		{[]string{"--self-signed-cert-secret=tls", "--self-signed-cert-validity=1m"}, "--self-signed-cert-validity: must be at least"},
		{[]string{"--self-signed-cert-secret=tls", "--self-signed-ca-validity=24h"}, "--self-signed-ca-validity: must be at least --self-signed-cert-validity"},
		{[]string{"--self-signed-cert-secret=tls", "--register-by-url", "--webhook-port=443"}, "--webhook-address"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			expectUsageError(t, newVPAAdmissionCommand(), tt.args, tt.want)
		})
	}
}

func installVPACRDs(t *testing.T, env *testenv.Env) {
	t.Helper()
	if err := crds.Install(t.Context(), env.Config, time.Minute); err != nil {
		t.Fatal(err)
	}
}

type certFiles struct{ ca, cert, key string }

// writeWebhookCerts writes a CA and a serving key pair for 127.0.0.1.
func writeWebhookCerts(t *testing.T) certFiles {
	t.Helper()
	dir := t.TempDir()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test-ca"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	f := certFiles{ca: filepath.Join(dir, "ca.crt"), cert: filepath.Join(dir, "tls.crt"), key: filepath.Join(dir, "tls.key")}
	for path, block := range map[string]*pem.Block{f.ca: {Type: "CERTIFICATE", Bytes: caDER}, f.cert: {Type: "CERTIFICATE", Bytes: der}, f.key: {Type: "EC PRIVATE KEY", Bytes: keyDER}} {
		if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return f
}
