package e2e

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kscale/kscale/internal/testenv"
)

// TestCustomMetricsServes runs the command against a real API server
// (without leader election) and checks that it serves the custom metrics
// API with delegated authentication and its own metrics, and stops cleanly.
func TestCustomMetricsServes(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	ports := cmFreePorts(t, 3)
	cmd := command("custom-metrics")
	cmd.SetArgs([]string{
		"--kubeconfig=" + env.KubeconfigPath,
		"--authentication-kubeconfig=" + env.KubeconfigPath,
		"--authorization-kubeconfig=" + env.KubeconfigPath,
		"--leader-election=false",
		"--bind-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", ports[0]),
		fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", ports[1]),
		fmt.Sprintf("--health-bind-address=127.0.0.1:%d", ports[2]),
	})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("command returned %v after cancel, want nil", err)
		}
	}()

	insecure := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		// The command serves an in-memory self-signed certificate when none is given.
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12},
	}}
	api := fmt.Sprintf("https://127.0.0.1:%d/apis/custom.metrics.k8s.io/v1beta2", ports[0])
	var body string
	err := wait.PollUntilContextTimeout(t.Context(), 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		code, b := cmGet(ctx, insecure, api, env.Config.BearerToken)
		body = b
		return code == http.StatusOK, nil
	})
	if err != nil || !strings.Contains(body, "pods/shoot:apiserver_request_total:sum") {
		t.Fatalf("discovery of the served API: %v: %s", err, body)
	}
	if code, _ := cmGet(t.Context(), insecure, api, "not-a-token"); code != http.StatusUnauthorized {
		t.Fatalf("unknown token: HTTP %d, want 401 from delegated authentication", code)
	}
	code, own := cmGet(t.Context(), http.DefaultClient, fmt.Sprintf("http://127.0.0.1:%d/metrics", ports[1]), "")
	if code != http.StatusOK || !strings.Contains(own, "kscale_custom_metrics_targets 0") {
		t.Fatalf("own metrics: HTTP %d: %.300s", code, own)
	}
	for _, path := range []string{"/health-check", "/healthz", "/readyz"} {
		if code, body := cmGet(t.Context(), http.DefaultClient, fmt.Sprintf("http://127.0.0.1:%d%s", ports[2], path), ""); code != http.StatusOK || body != "OK" {
			t.Errorf("health server %s: HTTP %d %q", path, code, body)
		}
	}
}

func cmGet(ctx context.Context, c *http.Client, url, token string) (int, string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err.Error()
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func cmFreePorts(t *testing.T, n int) []int {
	t.Helper()
	ports, err := testenv.FreePorts(n)
	if err != nil {
		t.Fatal(err)
	}
	return ports
}
