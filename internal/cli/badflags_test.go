package cli

import (
	"bytes"
	"strings"
	"testing"
)

// TestBadFlagsExit2NamingTheFlag runs every command with one bad flag,
// argument or missing file: each must exit 2 before doing anything, with
// an error that names the flag (or argument) the user wrote, not a Go
// field or a library's wording.
func TestBadFlagsExit2NamingTheFlag(t *testing.T) {
	missing := "/nonexistent/kscale-test-file"
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
		// node-autoscaler
		{[]string{"node-autoscaler", "--scan-interval=1ns"}, "--scan-interval"},
		{[]string{"node-autoscaler", "--scale-down-utilization-threshold=NaN"}, "--scale-down-utilization-threshold"},
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
		{[]string{"custom-metrics", "--kubeconfig=" + missing}, "--kubeconfig"},
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
