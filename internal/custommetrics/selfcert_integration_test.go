package custommetrics_test

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"net"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	cmv1beta2 "k8s.io/metrics/pkg/apis/custom_metrics/v1beta2"

	"github.com/kscale/kscale/internal/custommetrics/testkube"
	"github.com/kscale/kscale/internal/testenv"
)

// TestProviderSelfSignedCerts runs a provider with certificates that
// manage themselves and no certificate of the test's making: the APIService
// is registered without a caBundle, the provider creates the Secret and
// patches the caBundle, and the aggregation layer reaches it with TLS
// verified. Deleting the Secret forces a rotation to a new CA; the API
// answers every request throughout, without an API server restart.
func TestProviderSelfSignedCerts(t *testing.T) {
	const service, secret = "cm-selfcert", "cm-selfcert-tls"
	ns := testenv.NewNetNS(t, "10.213.0.12/30")
	registerAPIService(t, service, nil)
	ctx := t.Context()
	pctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- runProvider(pctx, providerSetup{
			Netns: ns.Name, IP: ns.IP, Kubeconfig: env.KubeconfigPath,
			ScrapePort: apiServerPort(t), Period: 10 * time.Second, MinGap: 4 * time.Second,
			LeaderElection: true, Service: service, Lease: service, Identity: "selfcert-test",
			SelfSignedSecret: secret, SelfSignedSync: 500 * time.Millisecond,
		})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("provider stopped with error: %v", err)
		}
		_ = env.Client.CoreV1().Secrets(systemNS).Delete(context.WithoutCancel(ctx), secret, metav1.DeleteOptions{})
	})

	testkube.Poll(t, ctx, time.Minute, "custom metrics through the aggregation layer", func(ctx context.Context) (bool, error) {
		return listThroughAggregator(ctx) == nil, nil
	})
	first := servedIssuer(ctx, ns.IP)
	expectAPIServiceTrusts(t, ns.IP, service)

	if err := env.Client.CoreV1().Secrets(systemNS).Delete(ctx, secret, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	var failures []error
	requests := 0
	deadline := time.Now().Add(time.Minute)
	for after := 0; after < 10; requests++ {
		if err := listThroughAggregator(ctx); err != nil {
			failures = append(failures, err)
		}
		if issuer := servedIssuer(ctx, ns.IP); issuer != "" && issuer != first {
			after++
		}
		if time.Now().After(deadline) {
			t.Fatal("the provider still serves the first CA's certificate a minute after the Secret was deleted")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(failures) > 0 {
		t.Errorf("%d of %d requests through the aggregation layer failed during the rotation, first: %v", len(failures), requests, failures[0])
	}
	expectAPIServiceTrusts(t, ns.IP, service)
}

// listThroughAggregator lists a custom metric through kube-apiserver.
func listThroughAggregator(ctx context.Context) error {
	var list cmv1beta2.MetricValueList
	path := "/apis/custom.metrics.k8s.io/v1beta2/namespaces/shoot--selfcert/pods/*/" + metricSum
	if err := getJSON(ctx, env.Client, path, "", &list); err != nil {
		return err
	}
	if list.Kind != "MetricValueList" {
		return fmt.Errorf("answer of kind %q", list.Kind)
	}
	return nil
}

// servedCert returns the certificate the provider presents at ip:6443, or
// nil when it cannot be reached.
func servedCert(ctx context.Context, ip string) *x509.Certificate {
	d := tls.Dialer{Config: &tls.Config{InsecureSkipVerify: true}} //nolint:gosec // reads the certificate only; trust is checked against the caBundle
	conn, err := d.DialContext(ctx, "tcp", net.JoinHostPort(ip, fmt.Sprint(servingPort)))
	if err != nil {
		return nil
	}
	defer func() { _ = conn.Close() }()
	return conn.(*tls.Conn).ConnectionState().PeerCertificates[0]
}

// servedIssuer identifies the CA of the served certificate by a hash of its
// Authority Key Identifier; "" when unreachable.
func servedIssuer(ctx context.Context, ip string) string {
	c := servedCert(ctx, ip)
	if c == nil {
		return ""
	}
	return fmt.Sprintf("%x", sha256.Sum256(c.AuthorityKeyId))
}

// expectAPIServiceTrusts checks that both APIServices' caBundle verifies
// the served certificate for the Service's name.
func expectAPIServiceTrusts(t *testing.T, ip, service string) {
	t.Helper()
	cert := servedCert(t.Context(), ip)
	if cert == nil {
		t.Fatal("provider unreachable")
	}
	dyn := dynamic.NewForConfigOrDie(env.Config).Resource(apiServiceGVR)
	for _, name := range []string{"v1beta2.custom.metrics.k8s.io", "v1beta1.custom.metrics.k8s.io"} {
		obj, err := dyn.Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		b64, _, _ := unstructured.NestedString(obj.Object, "spec", "caBundle")
		pem, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			t.Fatal(err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			t.Fatalf("%s: caBundle holds no certificate", name)
		}
		if _, err := cert.Verify(x509.VerifyOptions{Roots: pool, DNSName: service + "." + systemNS + ".svc"}); err != nil {
			t.Errorf("%s: caBundle does not verify the served certificate: %v", name, err)
		}
	}
}
