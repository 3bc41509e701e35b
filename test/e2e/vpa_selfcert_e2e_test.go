package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kscale/kscale/internal/testenv"
)

// TestVPAAdmissionSelfSignedCerts runs `kscale vpa-admission` under the
// ServiceAccount and RBAC of deploy/vpa/admission with
// --self-signed-cert-secret and no certificate of the test's making: it
// creates the Secret and registers the webhook with its CA, and the API
// server calls it (failurePolicy Fail, so a TLS failure fails the request).
// Deleting the Secret forces a rotation to a new CA; the webhook answers
// every request throughout, and the API server is never restarted.
func TestVPAAdmissionSelfSignedCerts(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	installVPACRDs(t, env)
	c := vpaTestClient(t, env)
	applyManifests(t, c, "../../deploy/vpa/admission", "serviceaccount.yaml", "rbac.yaml")
	const ns = "selfcert"
	if err := c.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	runCommand(t, command("vpa-admission"), []string{
		"--kubeconfig=" + serviceAccountKubeconfig(t, env, "kscale-vpa-admission"), "--namespace=kube-system",
		fmt.Sprintf("--port=%d", port), "--self-signed-cert-secret=kscale-vpa-webhook-tls", "--self-signed-cert-sync-period=500ms",
		"--register-by-url", "--webhook-address=127.0.0.1", fmt.Sprintf("--webhook-port=%d", port),
		"--webhook-failure-policy-fail", "--vpa-object-namespace=" + ns, fmt.Sprintf("--address=127.0.0.1:%d", freePort(t)),
	})
	// The webhook answers through the API server: a valid VPA is admitted,
	// an invalid one rejected with the webhook's reason.
	var first string
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		first = servedCA(t, port)
		return first != "" && admitVPAs(ctx, c, ns) == nil, nil
	})
	if err != nil {
		t.Fatalf("webhook never answered through the API server: %v (last: %v)", err, admitVPAs(t.Context(), c, ns))
	}
	expectBundleTrusts(t, c, port)

	// Forced rotation: the Secret goes; a new CA and certificate replace it
	// while the API server keeps calling the webhook.
	if err := env.Client.CoreV1().Secrets("kube-system").Delete(t.Context(), "kscale-vpa-webhook-tls", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	var failures []string
	requests := 0
	deadline := time.Now().Add(time.Minute)
	for after := 0; after < 10; requests++ {
		if err := admitVPAs(t.Context(), c, ns); err != nil {
			failures = append(failures, err.Error())
		}
		if servedCA(t, port) != first {
			after++
		}
		if time.Now().After(deadline) {
			t.Fatalf("the webhook still serves the first CA's certificate a minute after the Secret was deleted")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(failures) > 0 {
		t.Errorf("%d of %d requests failed during the rotation, first: %s", len(failures), requests, failures[0])
	}
	expectBundleTrusts(t, c, port)
	if _, err := env.Client.CoreV1().Secrets("kube-system").Get(t.Context(), "kscale-vpa-webhook-tls", metav1.GetOptions{}); err != nil {
		t.Errorf("secret not recreated: %v", err)
	}
}

// admitVPAs dry-runs a valid VPA, which must be admitted, and an invalid
// one, which the webhook must reject.
func admitVPAs(ctx context.Context, c client.Client, ns string) error {
	mode := vpav1.UpdateModeRecreate
	vpa := func(name string, minReplicas int32) *vpav1.VerticalPodAutoscaler {
		return &vpav1.VerticalPodAutoscaler{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			Spec: vpav1.VerticalPodAutoscalerSpec{
				TargetRef:    &autoscalingv1.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
				UpdatePolicy: &vpav1.PodUpdatePolicy{UpdateMode: &mode, MinReplicas: &minReplicas},
			},
		}
	}
	if err := c.Create(ctx, vpa("valid", 1), client.DryRunAll); err != nil {
		return fmt.Errorf("valid VPA: %w", err)
	}
	err := c.Create(ctx, vpa("invalid", 0), client.DryRunAll)
	if err == nil || !strings.Contains(err.Error(), "minReplicas: must be greater than 0") {
		return fmt.Errorf("invalid VPA: error %v, want the webhook's rejection", err)
	}
	return nil
}

// servedCA returns the fingerprint of the issuer the webhook's serving
// certificate names (its Authority Key Identifier), or "" when it cannot be
// reached.
func servedCA(t *testing.T, port int) string {
	t.Helper()
	cert := servedCert(t, port)
	if cert == nil {
		return ""
	}
	sum := sha256.Sum256(cert.AuthorityKeyId)
	return fmt.Sprintf("%x", sum)
}

func servedCert(t *testing.T, port int) *x509.Certificate {
	t.Helper()
	d := tls.Dialer{Config: &tls.Config{InsecureSkipVerify: true}} //nolint:gosec // reads the certificate only; trust is checked against the caBundle
	conn, err := d.DialContext(t.Context(), "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return nil
	}
	defer func() { _ = conn.Close() }()
	return conn.(*tls.Conn).ConnectionState().PeerCertificates[0]
}

// expectBundleTrusts checks that the registered caBundle verifies the
// certificate the webhook serves.
func expectBundleTrusts(t *testing.T, c client.Client, port int) {
	t.Helper()
	var mwc admissionregistrationv1.MutatingWebhookConfiguration
	if err := c.Get(t.Context(), client.ObjectKey{Name: "vpa-webhook-config"}, &mwc); err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(mwc.Webhooks[0].ClientConfig.CABundle) {
		t.Fatal("caBundle holds no certificate")
	}
	cert := servedCert(t, port)
	if cert == nil {
		t.Fatal("webhook unreachable")
	}
	if _, err := cert.Verify(x509.VerifyOptions{Roots: pool, DNSName: "127.0.0.1"}); err != nil {
		t.Errorf("caBundle does not verify the served certificate: %v", err)
	}
	if bytes.Contains(mwc.Webhooks[0].ClientConfig.CABundle, []byte("PRIVATE KEY")) {
		t.Error("caBundle carries a private key")
	}
}
