package e2e

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kscale/kscale/internal/custommetrics/testpki"
	"github.com/kscale/kscale/internal/metricsfilter/testbody"
)

// TestMetricsFilterCommand runs `kscale metrics-filter` in front of a TLS
// fake kube-apiserver: the filtered family is served over TLS with the
// caller's token passed through, the own metrics count it, and a replaced
// serving certificate is picked up without a restart.
func TestMetricsFilterCommand(t *testing.T) {
	targetCA, servingCA := testpki.NewCA(t, "target-ca"), testpki.NewCA(t, "serving-ca")
	target := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer T" {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		_, _ = w.Write(testbody.Body(0))
	}))
	target.TLS = &tls.Config{Certificates: []tls.Certificate{targetCA.Serving(t, []string{"kube-apiserver"}, nil)}, MinVersion: tls.VersionTLS13}
	target.StartTLS()
	t.Cleanup(target.Close)

	dir := t.TempDir()
	caFile, certFile, keyFile := filepath.Join(dir, "ca.crt"), filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	writeServing := func(ca *testpki.CA) {
		certPEM, keyPEM := ca.ServingPEM(t, []string{"kube-apiserver"}, []net.IP{net.ParseIP("127.0.0.1")})
		for path, data := range map[string][]byte{caFile: targetCA.PEM, certFile: certPEM, keyFile: keyPEM} {
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	writeServing(servingCA)
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	metricsAddr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	runCommand(t, command("metrics-filter"), []string{
		"--secure-address=" + addr, "--metrics-bind-address=" + metricsAddr,
		"--target-url=" + target.URL + "/metrics", "--target-ca-file=" + caFile,
		"--tls-cert-file=" + certFile, "--tls-private-key-file=" + keyFile,
	})

	url := "https://" + addr + "/metrics?name=" + testbody.RequestTotal
	body := getFiltered(t, servingCA, url, "Bearer T", http.StatusOK)
	for _, line := range strings.Split(strings.TrimSuffix(body, "\n"), "\n") {
		if !strings.HasPrefix(line, testbody.RequestTotal+"{") && !strings.HasPrefix(line, "# ") {
			t.Fatalf("unexpected line %q", line)
		}
	}
	getFiltered(t, servingCA, url, "Bearer wrong", http.StatusUnauthorized)
	waitHTTP(t, "http://"+metricsAddr+"/metrics", `kscale_metrics_filter_requests_total{code="401"} 1`)

	rotated := testpki.NewCA(t, "rotated-ca")
	writeServing(rotated)
	getFiltered(t, rotated, url, "Bearer T", http.StatusOK)
}

// getFiltered polls url over TLS trusting ca until it answers want, and
// returns the body.
func getFiltered(t *testing.T, ca *testpki.CA, url, auth string, want int) string {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.Pool(), MinVersion: tls.VersionTLS12}}, Timeout: 10 * time.Second}
	t.Cleanup(client.CloseIdleConnections)
	var body string
	var last error
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return false, err
		}
		req.Header.Set("Authorization", auth)
		resp, err := client.Do(req)
		if err != nil {
			last = err
			return false, nil
		}
		defer func() { _ = resp.Body.Close() }()
		data, err := io.ReadAll(resp.Body)
		body, last = string(data), err
		return err == nil && resp.StatusCode == want, nil
	})
	if err != nil {
		t.Fatalf("GET %s never answered %d: %v (last body %.100q)", url, want, last, body)
	}
	return body
}
