package cli

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kscale/kscale/internal/cloudprovider/registry"
	"github.com/kscale/kscale/internal/componentflags"
)

// upstreamCommandLine is a command line an upstream manifest runs, which
// kscale must take unchanged (shared/specs/compatibility.md §1).
type upstreamCommandLine struct {
	// name says where the line comes from (the spec section and source).
	name string
	// command is the kscale subcommand the upstream binary maps to.
	command string
	// env are environment variables the manifest sets.
	env map[string]string
	// args are the manifest's arguments after the binary.
	args []string
	// cloudProviderBuilt says whether this build has a builder for the
	// line's --cloud-provider. While it is false, the line must get as far
	// as the cloud completion (every other flag parsed and validated) and
	// stop there on the unsupported provider only; set it to true when the
	// provider lands, and the whole line must then validate.
	cloudProviderBuilt bool
}

// upstreamCommandLines are the spec's §1.1–1.6 command lines.
var upstreamCommandLines = []upstreamCommandLine{
	{name: "1.1 CA AWS auto-discovery example (cluster-autoscaler-autodiscover.yaml)", command: "node-autoscaler", args: []string{
		"--v=4", "--stderrthreshold=info", "--cloud-provider=aws", "--skip-nodes-with-local-storage=false", "--expander=least-waste",
		"--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/<YOUR CLUSTER NAME>",
	}, cloudProviderBuilt: true},
	{name: "1.2 CA Helm chart 9.59.0, aws", command: "node-autoscaler", args: []string{
		"--cloud-provider=aws", "--namespace=kube-system",
		"--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/my-cluster",
		"--logtostderr=true", "--stderrthreshold=info", "--v=4",
	}, cloudProviderBuilt: true},
	{name: "1.2 CA Helm chart 9.59.0, clusterapi", command: "node-autoscaler", args: []string{
		"--cloud-provider=clusterapi", "--namespace=kube-system", "--node-group-auto-discovery=clusterapi:clusterName=my-cluster",
		"--logtostderr=true", "--stderrthreshold=info", "--v=4",
	}, cloudProviderBuilt: true},
	{name: "1.3 Gardener computeCommand, all defaults plus every optional flag", command: "node-autoscaler",
		env: map[string]string{"CONTROL_NAMESPACE": "shoot--foo--bar", "TARGET_KUBECONFIG": "/var/run/secrets/gardener.cloud/shoot/generic-kubeconfig/kubeconfig"},
		args: []string{
			"--address=:8085", "--kubeconfig=/var/run/secrets/gardener.cloud/shoot/generic-kubeconfig/kubeconfig", "--cloud-provider=mcm",
			"--stderrthreshold=info", "--skip-nodes-with-system-pods=false", "--skip-nodes-with-local-storage=false",
			"--expendable-pods-priority-cutoff=-10", "--balance-similar-node-groups=true",
			"--ignore-taint=node.gardener.cloud/critical-components-not-ready", "--expander=priority,least-waste",
			"--max-graceful-termination-sec=600", "--max-node-provision-time=20m0s", "--initial-node-group-backoff-duration=5m0s",
			"--max-node-group-backoff-duration=30m0s", "--node-group-backoff-reset-timeout=3h0m0s",
			"--scale-down-utilization-threshold=0.500000", "--scale-down-unneeded-time=30m0s", "--scale-down-delay-after-add=1h0m0s",
			"--scale-down-delay-after-delete=0s", "--scale-down-delay-after-failure=3m0s", "--scan-interval=10s",
			"--ignore-daemonsets-utilization=false", "--v=2", "--max-scale-down-parallelism=10", "--max-drain-parallelism=1",
			"--new-pod-scale-up-delay=0s", "--max-nodes-total=0", "--emit-per-nodegroup-metrics=false", "--max-binpacking-time=5m0s",
			"--startup-taint=example.com/starting", "--status-taint=example.com/status", "--ignore-taint=example.com/ignored",
			"--nodes=1:3:shoot--foo--bar.bar-worker-z1", "--nodes=0:2:shoot--foo--bar.bar-worker-z2",
			"--max-total-unready-percentage=100",
		}, cloudProviderBuilt: true},
	{name: "1.4 VPA 1.8.1 recommender-deployment.yaml (no args)", command: "vpa-recommender"},
	{name: "1.4 VPA 1.8.1 updater-deployment.yaml (no args)", command: "vpa-updater", env: map[string]string{"NAMESPACE": "kube-system"}},
	{name: "1.4 VPA 1.8.1 admission-controller-deployment.yaml", command: "vpa-admission", env: map[string]string{"NAMESPACE": "kube-system"},
		args: []string{"--v=4", "--stderrthreshold=info", "--reload-cert"}},
	{name: "1.5 Gardener VPA recommender", command: "vpa-recommender", args: []string{
		"--v=3", "--stderrthreshold=info", "--pod-recommendation-min-cpu-millicores=10", "--pod-recommendation-min-memory-mb=10",
		"--recommendation-margin-fraction=0.150000", "--recommender-interval=1m0s", "--kube-api-qps=200", "--kube-api-burst=250",
		"--memory-saver=true", "--target-cpu-percentile=0.900000", "--recommendation-lower-bound-cpu-percentile=0.500000",
		"--recommendation-upper-bound-cpu-percentile=0.950000", "--cpu-histogram-decay-half-life=24h0m0s",
		"--target-memory-percentile=0.900000", "--recommendation-lower-bound-memory-percentile=0.500000",
		"--recommendation-upper-bound-memory-percentile=0.950000", "--memory-histogram-decay-half-life=24h0m0s",
		"--memory-aggregation-interval=24h0m0s", "--memory-aggregation-interval-count=8", "--leader-elect=true",
		"--leader-elect-resource-name=vpa-recommender", "--leader-elect-resource-namespace=shoot--foo--bar", "--update-worker-count=10",
		"--kubeconfig=/var/run/secrets/gardener.cloud/shoot/generic-kubeconfig/kubeconfig", "--feature-gates=InPlace=false",
		"--container-recommendation-max-allowed-cpu=4", "--container-recommendation-max-allowed-memory=8Gi",
	}},
	{name: "1.5 Gardener VPA updater", command: "vpa-updater", args: []string{
		"--min-replicas=1", "--eviction-tolerance=0.500000", "--eviction-rate-burst=1", "--eviction-rate-limit=-1.000000",
		"--evict-after-oom-threshold=10m0s", "--updater-interval=1m0s", "--stderrthreshold=info", "--v=2", "--kube-api-qps=200",
		"--kube-api-burst=250", "--leader-elect=true", "--leader-elect-resource-namespace=shoot--foo--bar",
		"--kubeconfig=/var/run/secrets/gardener.cloud/shoot/generic-kubeconfig/kubeconfig", "--feature-gates=InPlace=false",
	}},
	{name: "1.5 Gardener VPA admission controller", command: "vpa-admission", args: []string{
		"--v=2", "--stderrthreshold=info", "--kube-api-qps=200", "--kube-api-burst=250", "--client-ca-file=/etc/tls-certs/bundle.crt",
		"--tls-cert-file=/etc/tls-certs/tls.crt", "--tls-private-key=/etc/tls-certs/tls.key", "--address=:8944", "--port=10250",
		"--register-webhook=false", "--kubeconfig=/var/run/secrets/gardener.cloud/shoot/generic-kubeconfig/kubeconfig",
		"--feature-gates=InPlace=false",
	}},
	{name: "1.6 gardener-custom-metrics, Gardener PR #9570 deployment.go", command: "custom-metrics",
		env: map[string]string{"POD_IP": "10.0.0.7", "LEADER_ELECTION_NAMESPACE": "garden"},
		args: []string{
			"--secure-port=6443", "--tls-cert-file=/var/run/secrets/gardener.cloud/tls/tls.crt",
			"--tls-private-key-file=/var/run/secrets/gardener.cloud/tls/tls.key", "--leader-election=true", "--namespace=garden",
			"--access-ip=10.0.0.7", "--access-port=6443", "--log-level=74",
		}},
	{name: "1.6 gardener-custom-metrics example/custom-metrics-deployment.yaml", command: "custom-metrics",
		env: map[string]string{"POD_IP": "10.0.0.7"},
		args: []string{
			"--secure-port=6443", "--tls-cert-file=/var/run/secrets/gardener.cloud/tls/tls.crt",
			"--tls-private-key-file=/var/run/secrets/gardener.cloud/tls/tls.key", "--leader-election=false", "--namespace=garden",
			"--access-ip=10.0.0.7", "--access-port=6443", "--debug", "--log-level=75",
		}},
}

// TestUpstreamCommandLines runs every upstream command line through its
// command's flag parsing and validation: none may fail on a flag.
func TestUpstreamCommandLines(t *testing.T) {
	for _, line := range upstreamCommandLines {
		t.Run(line.name, func(t *testing.T) {
			for k, v := range line.env {
				t.Setenv(k, v)
			}
			cmd, ok := componentCommands()[line.command]
			if !ok {
				t.Fatalf("no command %q", line.command)
			}
			if err := cmd.ParseFlags(mountedFiles(t, line.args)); err != nil {
				t.Fatalf("parsing: %v", err)
			}
			err := cmd.PreRunE(cmd, nil)
			var unsupported *registry.UnsupportedError
			var missing *componentflags.FileError
			switch {
			case err == nil:
			case errors.As(err, &missing) && !cmd.Flags().Changed(strings.TrimPrefix(missing.Flag, "--")):
				// A flag's default names a file the upstream Pod mounts
				// (vpa-admission's /etc/tls-certs); the component checks
				// files after every other flag.
			case !line.cloudProviderBuilt && errors.As(err, &unsupported):
				// Every other flag validated; the provider is not built yet.
			default:
				t.Fatalf("validating: %v", err)
			}
		})
	}
}

// TestRepeatableFlagsAreStringArrays checks that repeatable flags keep each
// occurrence whole (upstream's stringArray): auto-discovery specs contain
// commas, and so may taint keys.
func TestRepeatableFlagsAreStringArrays(t *testing.T) {
	spec := "asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/my-cluster"
	for _, flag := range []string{"node-group-auto-discovery", "nodes", "startup-taint", "status-taint", "ignore-taint"} {
		cmd := componentCommands()["node-autoscaler"]
		if err := cmd.ParseFlags([]string{"--" + flag + "=" + spec, "--" + flag + "=c"}); err != nil {
			t.Fatal(err)
		}
		got, err := cmd.Flags().GetStringArray(flag)
		if err != nil || !slices.Equal(got, []string{spec, "c"}) {
			t.Errorf("--%s twice = %q (%v), want both values whole", flag, got, err)
		}
	}
}

// mountedFiles replaces every absolute file path an argument names (the
// manifest's Secret and kubeconfig mounts) with an empty file of the same
// name in a temporary directory, as the Pod would have it, so the line is
// validated through to its last flag.
func mountedFiles(t *testing.T, args []string) []string {
	t.Helper()
	out := make([]string, len(args))
	dir := t.TempDir()
	for i, a := range args {
		out[i] = a
		flag, value, ok := strings.Cut(a, "=")
		if !ok || !strings.HasPrefix(value, "/") || !slices.Contains(fileFlags, flag) {
			continue
		}
		path := filepath.Join(dir, strconv.Itoa(i)+"-"+filepath.Base(value))
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		out[i] = flag + "=" + path
	}
	return out
}

// fileFlags are the upstream flags that name a file the Pod mounts.
var fileFlags = []string{"--kubeconfig", "--tls-cert-file", "--tls-private-key", "--tls-private-key-file", "--client-ca-file"}
