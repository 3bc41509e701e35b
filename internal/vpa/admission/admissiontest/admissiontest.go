package admissiontest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kscale/kscale/internal/vpa/admission"
	"github.com/kscale/kscale/internal/vpa/target"
)

// Webhook is a running admission webhook.
type Webhook struct {
	// Config is the webhook's configuration.
	Config admission.Config
	// Registry holds the webhook's metrics.
	Registry *prometheus.Registry
}

// Start serves the webhook until the test ends. c must be able to read and
// write VPAs (its scheme includes autoscaling.k8s.io/v1). statusNamespace
// holds the status Lease.
func Start(t testing.TB, c client.Client, statusNamespace string) *Webhook {
	t.Helper()
	return StartWith(t, c, statusNamespace, nil)
}

// StartWith is Start with the configuration changed by mutate (for example
// to turn feature gates on); mutate may be nil.
func StartWith(t testing.TB, c client.Client, statusNamespace string, mutate func(*admission.Config)) *Webhook {
	t.Helper()
	dir := t.TempDir()
	caFile, certFile, keyFile, err := writeCerts(dir)
	if err != nil {
		t.Fatalf("writing webhook certificates: %v", err)
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(t.Context(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listening for the webhook: %v", err)
	}
	cfg := admission.DefaultConfig()
	cfg.CertFile, cfg.KeyFile, cfg.CAFile = certFile, keyFile, caFile
	cfg.RegisterByURL, cfg.WebhookURL = true, "https://"+ln.Addr().String()+"/"
	cfg.Namespace = statusNamespace
	cfg.TimeoutSeconds = 10
	if mutate != nil {
		mutate(&cfg)
	}
	reg := prometheus.NewRegistry()
	srv, err := admission.New(cfg, admission.Deps{Client: c, Resolver: target.NewResolver(c), Registerer: reg})
	if err != nil {
		_ = ln.Close()
		t.Fatalf("building the webhook: %v", err)
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(t.Context()))
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("webhook server: %v", err)
		}
	})
	waitActive(t, c)
	return &Webhook{Config: cfg, Registry: reg}
}

// waitActive waits until the API server calls the webhook: a dry-run VPA
// with an invalid update mode is then rejected with the webhook's message.
func waitActive(t testing.TB, c client.Client) {
	t.Helper()
	bad := vpav1.UpdateMode("Sometimes")
	probe := &vpav1.VerticalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "admissiontest-probe", Namespace: "default"},
		Spec: vpav1.VerticalPodAutoscalerSpec{
			TargetRef:    &autoscalingv1.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "probe"},
			UpdatePolicy: &vpav1.PodUpdatePolicy{UpdateMode: &bad},
		},
	}
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		err := c.Create(ctx, probe.DeepCopy(), client.DryRunAll)
		return err != nil && strings.Contains(err.Error(), "spec.updatePolicy.updateMode: unsupported value"), nil
	})
	if err != nil {
		t.Fatalf("waiting for the API server to call the webhook: %v", err)
	}
}

// writeCerts writes a CA and a serving key pair for 127.0.0.1 into dir.
func writeCerts(dir string) (caFile, certFile, keyFile string, err error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", "", "", fmt.Errorf("generating CA key: %w", err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kscale-admissiontest-ca"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return "", "", "", fmt.Errorf("signing CA: %w", err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return "", "", "", fmt.Errorf("parsing CA: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", "", "", fmt.Errorf("generating serving key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:    x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return "", "", "", fmt.Errorf("signing serving certificate: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return "", "", "", fmt.Errorf("encoding serving key: %w", err)
	}
	caFile, certFile, keyFile = filepath.Join(dir, "ca.crt"), filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	return caFile, certFile, keyFile, errors.Join(
		writePEM(caFile, "CERTIFICATE", caDER), writePEM(certFile, "CERTIFICATE", der), writePEM(keyFile, "EC PRIVATE KEY", keyDER))
}

func writePEM(path, typ string, der []byte) error {
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600)
}
