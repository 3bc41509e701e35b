package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/kscale/kscale/internal/custommetrics/testpki"
	"github.com/kscale/kscale/internal/nodeautoscaler/options"
)

// TestBadFlagsExit2NamingTheFlag runs every command with one bad flag,
// argument or missing file: each must exit 2 before doing anything, with
// an error that names the flag (or argument) the user wrote, not a Go
// field or a library's wording.
func TestBadFlagsExit2NamingTheFlag(t *testing.T) {
	missing := "/nonexistent/kscale-test-file"
	ca := testpki.NewCA(t, "flags-ca")
	certPEM, keyPEM := ca.ServingPEM(t, []string{"kube-apiserver"}, nil)
	certFile, keyFile := filepath.Join(t.TempDir(), "tls.crt"), filepath.Join(t.TempDir(), "tls.key")
	for path, data := range map[string][]byte{certFile: certPEM, keyFile: keyPEM} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	serving := []string{"metrics-filter", "--tls-cert-file=" + certFile, "--tls-private-key-file=" + keyFile}
	badCosts := filepath.Join(t.TempDir(), "costs.yaml")
	if err := os.WriteFile(badCosts, []byte("defaultCost: 1\nrules:\n  - verb: GET\n    cost: -1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	badGRPC := filepath.Join(t.TempDir(), "externalgrpc.yaml")
	if err := os.WriteFile(badGRPC, []byte("address: provider:8086\ncert: /c.pem\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string
	}{
		// Every command: unknown flags and stray arguments.
		{[]string{"node-autoscaler", "--no-such-flag"}, "--no-such-flag"},
		{[]string{"vpa-recommender", "extra"}, `"extra"`},
		{[]string{"vpa-updater", "--updater-interval=soon"}, "--updater-interval"},
		{[]string{"simulate"}, "exactly one scenario file"},
		{[]string{"simulate", missing}, missing},
		{[]string{"nope"}, `unknown command "nope"`},
		{[]string{"shadow", "report", "--no-such-flag"}, "--no-such-flag"},
		{[]string{"shadow", "report", "extra"}, `"extra"`},
		// node-autoscaler
		{[]string{"node-autoscaler", "--scan-interval=1ns"}, "--scan-interval"},
		{[]string{"node-autoscaler", "--scale-down-utilization-threshold=NaN"}, "--scale-down-utilization-threshold"},
		{[]string{"node-autoscaler", "--max-free-difference-ratio=1.5"}, "--max-free-difference-ratio"},
		{[]string{"node-autoscaler", "--feature-gates=CPUManagerPolicyAlphaOptions=true"}, "CPUManagerPolicyAlphaOptions=true"},
		{[]string{"node-autoscaler", "--feature-gates=InPlacePodVerticalScaling=false"}, "--feature-gates"},
		{[]string{"node-autoscaler", "--memory-difference-ratio=NaN"}, "--memory-difference-ratio"},
		{[]string{"node-autoscaler", "--balancing-label=bad label"}, "--balancing-label"},
		{[]string{"node-autoscaler", "--allowed-scheduler-names=a,,b"}, "--allowed-scheduler-names"},
		{[]string{"node-autoscaler", "--scale-down-candidates-pool-ratio=1.5"}, "--scale-down-candidates-pool-ratio"},
		{[]string{"node-autoscaler", "--scale-down-candidates-pool-ratio=NaN"}, "--scale-down-candidates-pool-ratio"},
		{[]string{"node-autoscaler", "--scale-down-candidates-pool-min-count=-1"}, "--scale-down-candidates-pool-min-count"},
		{[]string{"node-autoscaler", "--scale-down-non-empty-candidates-count=many"}, "--scale-down-non-empty-candidates-count"},
		{[]string{"node-autoscaler", "--unremovable-node-recheck-timeout=-1m"}, "--unremovable-node-recheck-timeout"},
		{[]string{"node-autoscaler", "--leader-elect-renew-deadline=0s"}, "--leader-elect-renew-deadline"},
		{[]string{"node-autoscaler", "--address=:70000"}, "--address"},
		{[]string{"node-autoscaler", "--kube-client-qps=NaN"}, "--kube-client-qps"},
		{[]string{"node-autoscaler", "--kubeconfig=" + missing}, "--kubeconfig"},
		{[]string{"node-autoscaler", "--cloud-config=" + missing}, "--cloud-config"},
		{[]string{"node-autoscaler", "--cloud-provider=externalgrpc"}, "--cloud-config"},
		{[]string{"node-autoscaler", "--expander=grpc", "--grpc-expander-url=expander:8080"}, "--grpc-expander-cert"},
		{[]string{"node-autoscaler", "--expander=grpc", "--grpc-expander-url=expander:8080", "--grpc-expander-cert=" + missing}, "--grpc-expander-cert"},
		{[]string{"node-autoscaler", "--grpc-expander-url=expander:8080"}, "--grpc-expander-url"},
		{[]string{"node-autoscaler", "--cloud-provider=externalgrpc", "--cloud-config=" + badGRPC}, "--cloud-config"},
		{[]string{"node-autoscaler", "--cloud-provider=externalgrpc", "--cloud-config=" + badGRPC, "--nodes=1:2:g"}, "--nodes"},
		{[]string{"node-autoscaler", "--min-replica-count=-1"}, "--min-replica-count"},
		{[]string{"node-autoscaler", "--drain-priority-config=0-60"}, "--drain-priority-config"},
		{[]string{"node-autoscaler", "--drain-priority-config=0:60", "--max-graceful-termination-sec=60"}, "--drain-priority-config"},
		{[]string{"node-autoscaler", "--max-bulk-soft-taint-count=-1"}, "--max-bulk-soft-taint-count"},
		{[]string{"node-autoscaler", "--max-bulk-soft-taint-time=-1s"}, "--max-bulk-soft-taint-time"},
		{[]string{"node-autoscaler", "--node-delete-delay-after-taint=-1s"}, "--node-delete-delay-after-taint"},
		{[]string{"node-autoscaler", "--node-deletion-delay-timeout=-1s"}, "--node-deletion-delay-timeout"},
		{[]string{"node-autoscaler", "--cordon-node-before-terminating=maybe"}, "--cordon-node-before-terminating"},
		{[]string{"node-autoscaler", "--daemonset-eviction-for-empty-nodes=maybe"}, "--daemonset-eviction-for-empty-nodes"},
		{[]string{"node-autoscaler", "--blocking-system-pod-distruption-timeout=-1s"}, "--blocking-system-pod-distruption-timeout"},
		// vpa-recommender
		{[]string{"vpa-recommender", "--target-cpu-percentile=NaN"}, "--target-cpu-percentile"},
		{[]string{"vpa-recommender", "--target-cpu-percentile=1.5"}, "--target-cpu-percentile"},
		{[]string{"vpa-recommender", "--kube-api-qps=NaN"}, "--kube-api-qps"},
		{[]string{"vpa-recommender", "--address=:70000"}, "--address"},
		{[]string{"vpa-recommender", "--cache-sync-timeout=0s"}, "--cache-sync-timeout"},
		{[]string{"vpa-recommender", "--update-worker-count=0"}, "--update-worker-count"},
		{[]string{"vpa-recommender", "--recommender-interval=1ns"}, "--recommender-interval"},
		{[]string{"vpa-recommender", "--leader-elect-renew-deadline=0s"}, "--leader-elect-renew-deadline"},
		{[]string{"vpa-recommender", "--kubeconfig=" + missing}, "--kubeconfig"},
		// vpa-updater
		{[]string{"vpa-updater", "--updater-interval=1ns"}, "--updater-interval"},
		{[]string{"vpa-updater", "--pod-update-threshold=NaN"}, "--pod-update-threshold"},
		{[]string{"vpa-updater", "--address=:70000"}, "--address"},
		{[]string{"vpa-updater", "--kube-api-qps=NaN"}, "--kube-api-qps"},
		{[]string{"vpa-updater", "--leader-elect-renew-deadline=0s"}, "--leader-elect-renew-deadline"},
		{[]string{"vpa-updater", "--kubeconfig=" + missing}, "--kubeconfig"},
		// vpa-admission
		{[]string{"vpa-admission", "--port=70000"}, "--port"},
		{[]string{"vpa-admission", "--address=:70000"}, "--address"},
		{[]string{"vpa-admission", "--kube-api-qps=NaN"}, "--kube-api-qps"},
		{[]string{"vpa-admission", "--tls-cert-file=" + missing, "--tls-private-key=" + missing}, "--tls-cert-file"},
		{[]string{"vpa-admission", "--kubeconfig=" + missing}, "--kubeconfig"},
		// custom-metrics
		{[]string{"custom-metrics", "--metric-names="}, "--metric-names"},
		{[]string{"custom-metrics", "--secure-port=70000"}, "--secure-port"},
		{[]string{"custom-metrics", "--qps=NaN"}, "--qps"},
		{[]string{"custom-metrics", "--max-concurrent-scrapes=0"}, "--max-concurrent-scrapes"},
		{[]string{"custom-metrics", "--metrics-bind-address=:70000"}, "--metrics-bind-address"},
		{[]string{"custom-metrics", "--namespace=kube-system", "--access-ip=10.0.0.1", "--leader-election-renew-deadline=0s"}, "--leader-election-renew-deadline"},
		{[]string{"custom-metrics", "--namespace=kube-system", "--access-ip=10.0.0.1", "--leader-election-lease-duration=5s"}, "--leader-election-lease-duration: 5s must be longer than the renew deadline, 10s"},
		{[]string{"custom-metrics", "--namespace=kube-system", "--access-ip=10.0.0.1", "--access-port=0"}, "--access-port: 0 is not a TCP port"},
		{[]string{"custom-metrics", "--kubeconfig=" + missing}, "--kubeconfig"},
		{[]string{"custom-metrics", "--request-cost-file=" + missing}, "--request-cost-file"},
		{[]string{"custom-metrics", "--request-cost-file=" + badCosts}, "line 4: rules[0].cost"},
		{[]string{"custom-metrics", "--weighted-metric-names=x"}, "--weighted-metric-names: needs --request-cost-file"},
		{[]string{"custom-metrics", "--weighted-metric-names=shoot:apiserver_request_total:sum"}, "--weighted-metric-names"},
		// metrics-filter
		{[]string{"metrics-filter"}, "--tls-cert-file and --tls-private-key-file: required"},
		{[]string{"metrics-filter", "--tls-cert-file=" + keyFile, "--tls-private-key-file=" + keyFile}, "--tls-cert-file"},
		{[]string{"metrics-filter", "--secure-address=:70000"}, "--secure-address"},
		{append(slices.Clone(serving), "--target-url=ftp://x/metrics"), "--target-url"},
		{append(slices.Clone(serving), "--target-url=http://127.0.0.1:8080/metrics"), "--target-url"},
		{append(slices.Clone(serving), "--target-timeout=0s"), "--target-timeout"},
		{serving, "--target-ca-file: required"},
		{append(slices.Clone(serving), "--target-ca-file="+keyFile), "--target-ca-file: no PEM certificate"},
		// snapshot
		{[]string{"snapshot", "--kubeconfig=" + missing}, "--kubeconfig"},
		// simulate
		{[]string{"simulate", "--seeds=0", "x.yaml"}, "--seeds"},
		{[]string{"simulate", "--output=yaml", "x.yaml"}, "--output"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := execute(t.Context(), tc.args, &stdout, &stderr)
			if code != ExitCodeUsage || !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 naming %s", code, stderr.String(), tc.want)
			}
		})
	}
}

// TestKubernetesGatesAtTheirDefaults checks that the node autoscaler
// accepts upstream's Kubernetes feature gates when they keep their default
// value (so command lines that spell them out run), and refuses only a
// change; a gate set to its default in a command line must not reach the
// refusal.
func TestKubernetesGatesAtTheirDefaults(t *testing.T) {
	var args []string
	for g, spec := range options.KubernetesGates {
		if !spec.LockToDefault {
			args = append(args, fmt.Sprintf("%s=%t", g, spec.Default))
		}
	}
	if len(args) < 100 {
		t.Fatalf("only %d unlocked Kubernetes gates; the generated table is incomplete", len(args))
	}
	c := &commonFlags{}
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	c.add(fs, commonSpec{gates: options.KubernetesGates, defaultOnlyGates: true})
	if err := fs.Parse([]string{"--feature-gates=" + strings.Join(args, ",")}); err != nil {
		t.Fatal(err)
	}
	if err := c.complete(); err != nil {
		t.Fatalf("every gate at its default refused: %v", err)
	}
}
