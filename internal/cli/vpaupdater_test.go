package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kscale/kscale/internal/testenv"
)

func TestVPAUpdaterGardenerFlagDefaults(t *testing.T) {
	cmd := newVPAUpdaterCommand()
	// Every Gardener updater setting (vpa-hpa.md §7) and the other upstream
	// updater flags, with their defaults.
	want := map[string]string{
		"evict-after-oom-threshold": "10m0s",
		"eviction-rate-burst":       "1",
		"eviction-rate-limit":       "-1",
		"eviction-tolerance":        "0.5",
		"updater-interval":          "1m0s",
		"min-replicas":              "2",
		"pod-update-threshold":      "0.1",
		"in-recommendation-bounds-eviction-lifetime-threshold": "12h0m0s",
		"use-admission-controller-status":                      "true",
		"admission-controller-status-lease-timeout":            "1m0s",
		"in-place-skip-disruption-budget":                      "false",
		"kube-api-qps":                                         "50",
		"kube-api-burst":                                       "100",
		"admission-controller-status-lease-name":               "vpa-admission-controller",
		"admission-controller-status-lease-namespace":          "",
		"leader-elect-resource-namespace":                      "kube-system",
		"leader-elect-resource-lock":                           "leases",
	}
	expectDefaults(t, cmd.Flags().Lookup, want)
}

func TestVPAUpdaterBadFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--eviction-tolerance=2"}, "--eviction-tolerance"},
		{[]string{"--min-replicas=-1"}, "--min-replicas"},
		{[]string{"--updater-interval=0s"}, "--updater-interval"},
		{[]string{"--eviction-rate-burst=0"}, "--eviction-rate-burst"},
		{[]string{"--vpa-object-namespace=a", "--ignored-vpa-object-namespaces=b"}, "set at most one"},
		{[]string{"--leader-elect", "--leader-elect-lease-duration=1s"}, "--leader-elect-lease-duration"},
		{[]string{"--kube-api-qps=0"}, "--kube-api-qps"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			expectUsageError(t, newVPAUpdaterCommand(), tt.args, tt.want)
		})
	}
}

func expectUsageError(t *testing.T, cmd interface {
	SetOut(io.Writer)
	SetErr(io.Writer)
	SetArgs([]string)
	Execute() error
}, args []string, want string) {
	t.Helper()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.Execute()
	var ue *UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), want) {
		t.Fatalf("Execute = %v; want a UsageError naming %s", err, want)
	}
}

// freePort returns a loopback port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	var lc net.ListenConfig
	ln, err := lc.Listen(t.Context(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }()
	return ln.Addr().(*net.TCPAddr).Port
}

// runCommand runs cmd with args until the test ends.
func runCommand(t *testing.T, cmd interface {
	SetArgs([]string)
	ExecuteContext(context.Context) error
}, args []string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.WithoutCancel(t.Context()))
	done := make(chan error, 1)
	cmd.SetArgs(args)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("command: %v", err)
		}
	})
}

// waitHTTP waits until GET url answers 200 with a body containing want.
func waitHTTP(t *testing.T, url, want string) string {
	t.Helper()
	var body string
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return false, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false, nil
		}
		defer func() { _ = resp.Body.Close() }()
		b, _ := io.ReadAll(resp.Body)
		body = string(b)
		return resp.StatusCode == http.StatusOK && strings.Contains(body, want), nil
	})
	if err != nil {
		t.Fatalf("waiting for %s to serve %q: %v\n%s", url, want, err, grepLines(body, "kscale_"))
	}
	return body
}

func waitLease(t *testing.T, env *testenv.Env, ns, name string) *coordinationv1.Lease {
	t.Helper()
	var lease *coordinationv1.Lease
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		l, err := env.Client.CoordinationV1().Leases(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		lease = l
		return l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity != "", nil
	})
	if err != nil {
		t.Fatalf("waiting for Lease %s/%s: %v", ns, name, err)
	}
	return lease
}

func grepLines(s, substr string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, substr) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
