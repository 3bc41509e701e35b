package custommetrics_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kscale/kscale/internal/custommetrics/discovery"
	"github.com/kscale/kscale/internal/custommetrics/scrape"
	"github.com/kscale/kscale/internal/custommetrics/testkube"
	"github.com/kscale/kscale/internal/custommetrics/testpki"
	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/metricsfilter"
)

// TestScrapeThroughMetricsFilter puts the metrics-filter sidecar in front
// of the real kube-apiserver (TLS verified both ways, the scraper's token
// passed through to kube-apiserver's authentication and RBAC) and scrapes
// a pod that names the sidecar's port; without the sidecar the scrape falls
// back to kube-apiserver itself.
func TestScrapeThroughMetricsFilter(t *testing.T) {
	const ns = "shoot--filter--a"
	ctx := t.Context()
	sidecarCA := testpki.NewCA(t, "sidecar-ca")
	shootNamespace(t, ns, append(append([]byte{}, env.CAData...), sidecarCA.PEM...))
	reg := prometheus.NewRegistry()
	port, stop := startSidecar(t, sidecarCA, reg)
	pod := fixture.Pod("kapi-1", fixture.InNamespace(ns))
	pod.Labels = testkube.APIServerLabels()
	pod.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: discovery.FilterPortName, ContainerPort: int32(port)}}
	created, err := env.Client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	testkube.SetPodIP(t, ctx, env.Client, created, "127.0.0.1")
	client, target := scrapeClient(t, types.NamespacedName{Namespace: ns, Name: "kapi-1"})
	if target.FilterPort != int32(port) {
		t.Fatalf("target filter port %d, want %d", target.FilterPort, port)
	}

	res, err := client.Scrape(ctx, target)
	if err != nil || !res.Filtered || res.Series < 10 || res.Value <= 0 {
		t.Fatalf("Scrape() = %+v, %v; want a filtered scrape of many series", res, err)
	}
	if reference := expfmtRequestTotal(t); reference < res.Value {
		t.Fatalf("filtered sum %v above the later full parse %v", res.Value, reference)
	}
	in, out := bodyBytes(t, reg, "in"), bodyBytes(t, reg, "out")
	if out <= 0 || out*5 > in {
		t.Fatalf("sidecar read %v bytes and wrote %v; want most of the body dropped", in, out)
	}
	t.Logf("kube-apiserver body %.0f bytes, filtered %.0f bytes (%.1f%%)", in, out, 100*out/in)

	t.Run("kube-apiserver itself ignores name queries", func(t *testing.T) {
		// Why the sidecar has its own port: asking kube-apiserver with
		// ?name= or ?name[]= still returns every family.
		for _, param := range []string{"name", "name[]"} {
			raw, err := env.Client.Discovery().RESTClient().Get().AbsPath("/metrics").Param(param, "apiserver_request_total").DoRaw(ctx)
			if err != nil || !strings.Contains(string(raw), "\napiserver_request_duration_seconds_bucket{") {
				t.Fatalf("GET /metrics?%s=apiserver_request_total: %d bytes, %v; want the whole body", param, len(raw), err)
			}
		}
	})
	t.Run("wrong token is kube-apiserver's 401 through the sidecar", func(t *testing.T) {
		testkube.Secret(t, ctx, env.Client, ns, tokenSecret, nil, map[string][]byte{"token": []byte("revoked-token")})
		testkube.Poll(t, ctx, 10*time.Second, "401 through the sidecar", func(ctx context.Context) (bool, error) {
			_, err := client.Scrape(ctx, target)
			var se *scrape.StatusError
			return errors.As(err, &se) && se.Code == http.StatusUnauthorized, nil
		})
		testkube.Secret(t, ctx, env.Client, ns, tokenSecret, nil, map[string][]byte{"token": []byte(scraper.Token)})
	})
	t.Run("sidecar gone: kube-apiserver directly", func(t *testing.T) {
		stop()
		testkube.Poll(t, ctx, 10*time.Second, "a direct scrape", func(ctx context.Context) (bool, error) {
			res, err := client.Scrape(ctx, target)
			return err == nil && !res.Filtered && res.Series >= 10, err
		})
	})
}

// startSidecar serves a metrics filter for the test kube-apiserver on a
// loopback port with a kube-apiserver certificate of ca; stop closes it.
func startSidecar(t *testing.T, ca *testpki.CA, reg prometheus.Registerer) (port int, stop func()) {
	t.Helper()
	target, err := url.Parse(env.APIServerURL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(env.CAData)
	proxy, err := metricsfilter.NewProxy(metricsfilter.Config{Target: target, TLS: &tls.Config{RootCAs: pool, ServerName: scrape.ServerName, MinVersion: tls.VersionTLS12}, Registerer: reg})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: proxy, ReadHeaderTimeout: 5 * time.Second,
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{ca.Serving(t, []string{scrape.ServerName}, nil)}, MinVersion: tls.VersionTLS13}}
	go func() { _ = srv.ServeTLS(l, "", "") }()
	t.Cleanup(func() { _ = srv.Close() })
	_, p, _ := net.SplitHostPort(l.Addr().String())
	port, _ = strconv.Atoi(p)
	return port, func() { _ = srv.Close() }
}

// bodyBytes returns the sidecar's body byte counter of a direction.
func bodyBytes(t *testing.T, reg *prometheus.Registry, direction string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			if l := m.GetLabel(); f.GetName() == "kscale_metrics_filter_body_bytes_total" && len(l) == 1 && l[0].GetValue() == direction {
				return m.GetCounter().GetValue()
			}
		}
	}
	t.Fatalf("no %s byte counter", direction)
	return 0
}
