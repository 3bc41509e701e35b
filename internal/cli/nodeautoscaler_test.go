package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kscale/kscale/internal/nodeautoscaler/live"
)

func TestNodeAutoscalerFlagDefaults(t *testing.T) {
	cmd := newNodeAutoscalerCommand()
	expectDefaults(t, cmd.Flags().Lookup, map[string]string{
		"scan-interval":                     "10s",
		"address":                           ":8085",
		"max-inactivity":                    "10m0s",
		"max-failing-time":                  "15m0s",
		"max-startup-time":                  "20m0s",
		"user-agent":                        "cluster-autoscaler",
		"kube-api-content-type":             "application/vnd.kubernetes.protobuf",
		"status-config-map-name":            "cluster-autoscaler-status",
		"leader-elect-resource-lock":        "leases",
		"expander":                          "[least-waste]",
		"max-nodegroup-binpacking-duration": "10s",
		"max-binpacking-time":               "5m0s",
		"max-total-unready-percentage":      "45",
		"ok-total-unready-count":            "3",
		"emit-per-nodegroup-metrics":        "false",
		"ignore-daemonsets-utilization":     "false",
		"leader-elect":                      "true",
		"leader-elect-resource-namespace":   "kube-system",
		"leader-elect-resource-name":        "cluster-autoscaler",
		"cloud-provider":                    "kwok",
		"namespace":                         "kube-system",
		"write-status-configmap":            "true",
		"kubeconfig":                        "",
		"aws-use-static-instance-list":      "false",
		"aws-refresh-interval":              "1m0s",
	})
}

func TestNodeAutoscalerBadFlags(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	bad := filepath.Join(dir, "bad.yaml")
	grpc := filepath.Join(dir, "grpc.yaml")
	for path, data := range map[string]string{
		grpc: "address: localhost:1\n",
		good: "nodeGroups:\n- {name: a, max: 1, instanceTypes: [m5.large]}\n",
		bad:  "nodeGroups:\n- {name: a, max: 1, instanceTypes: [m9.huge]}\n",
	} {
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--cloud-provider=gce"}, "--cloud-provider"},
		{[]string{"--cloud-provider=aws", "--cloud-config=" + good}, "--cloud-config: not supported by --cloud-provider=aws"},
		{[]string{"--cloud-provider=aws"}, "--nodes or --node-group-auto-discovery"},
		{[]string{"--cloud-provider=aws", "--nodes=3:1:asg"}, "--nodes"},
		{[]string{"--cloud-provider=aws", "--nodes=1:3:asg", "--nodes=0:2:asg"}, "given twice"},
		{[]string{"--cloud-provider=aws", "--node-group-auto-discovery=asg:tag="}, "--node-group-auto-discovery"},
		{[]string{"--cloud-provider=aws", "--node-group-auto-discovery=mig:tag=a"}, "--node-group-auto-discovery"},
		{[]string{"--cloud-provider=aws", "--nodes=1:3:asg", "--aws-refresh-interval=-1s"}, "--aws-refresh-interval"},
		{[]string{}, "--cloud-config: required"},
		{[]string{"--cloud-config=" + good, "--nodes=1:3:a"}, "--nodes: not supported by --cloud-provider=kwok"},
		{[]string{"--cloud-config=" + good, "--node-group-auto-discovery=asg:tag=a"}, "--node-group-auto-discovery: not supported"},
		{[]string{"--cloud-config=" + filepath.Join(dir, "missing.yaml")}, "--cloud-config"},
		{[]string{"--cloud-config=" + bad}, "m9.huge"},
		{[]string{"--cloud-config=" + good, "--max-inactivity=0s"}, "--max-inactivity"},
		{[]string{"--cloud-config=" + good, "--scan-interval=0s"}, "scan-interval"},
		{[]string{"--cloud-config=" + good, "--leader-elect-lease-duration=1s"}, "leader-elect-lease-duration"},
		{[]string{"--cloud-config=" + good, "--max-failing-time=0s"}, "--max-failing-time"},
		{[]string{"--cloud-config=" + good, "--status-config-map-name="}, "--status-config-map-name"},
		{[]string{"--cloud-config=" + good, "--leader-elect-resource-lock=configmaps"}, "--leader-elect-resource-lock"},
		{[]string{"--cloud-config=" + good, "--max-total-unready-percentage=101"}, "max-total-unready-percentage"},
		{[]string{"--cloud-config=" + good, "--parallel-scale-up=true"}, "parallel-scale-up"},
		{[]string{"--cloud-config=" + good, "--dry-run"}, "--dry-run: not supported with --cloud-provider=kwok"},
		{[]string{"--cloud-provider=aws", "--nodes=1:3:asg", "--dry-run", "--status-config-map-name=cluster-autoscaler-status"}, "--status-config-map-name"},
		{[]string{"--cloud-provider=aws", "--nodes=1:3:asg", "--dry-run", "--leader-elect-resource-name=cluster-autoscaler"}, "--leader-elect-resource-name"},
		{[]string{"--cloud-config=" + good, "--shadow-record-file=x.jsonl"}, "--shadow-record-file: requires --dry-run"},
		{[]string{"--cloud-config=" + good, "--shadow-compare-window=0s"}, "--shadow-compare-window"},
		{[]string{"--cloud-provider=externalgrpc", "--cloud-config=" + grpc, "--template-kube-proxy-pod"}, "--template-kube-proxy-pod: upstream's externalgrpc provider"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			expectUsageError(t, newNodeAutoscalerCommand(), tt.args, tt.want)
		})
	}
}

// TestNodeAutoscalerLeaseNamespace checks upstream's Lease placement: in
// --namespace, unless --leader-elect-resource-namespace is given.
func TestNodeAutoscalerLeaseNamespace(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "cloud.yaml")
	if err := os.WriteFile(cfg, []byte("nodeGroups:\n- {name: a, max: 1, instanceTypes: [m5.large]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string
	}{
		{nil, "kube-system"},
		{[]string{"--namespace=autoscaling"}, "autoscaling"},
		{[]string{"--namespace=autoscaling", "--leader-elect-resource-namespace=leases"}, "leases"},
	}
	for _, tt := range tests {
		o := newNodeAutoscalerFlags()
		cmd := newComponentCommand("node-autoscaler", "", o, commonSpec{})
		if err := cmd.ParseFlags(append([]string{"--cloud-config=" + cfg}, tt.args...)); err != nil {
			t.Fatal(err)
		}
		if err := cmd.PreRunE(cmd, nil); err != nil {
			t.Fatal(err)
		}
		if o.Election().Namespace != tt.want {
			t.Errorf("%v: Lease namespace %q, want %q", tt.args, o.Election().Namespace, tt.want)
		}
	}
}

// TestNodeAutoscalerDryRunNames checks that a dry run writes its own
// status ConfigMap and elects on its own Lease unless told otherwise.
func TestNodeAutoscalerDryRunNames(t *testing.T) {
	tests := []struct {
		args               []string
		wantStatus, wantLe string
	}{
		{nil, "cluster-autoscaler-status", "cluster-autoscaler"},
		{[]string{"--dry-run"}, live.ShadowStatusName, live.ShadowLeaseName},
		{[]string{"--dry-run", "--status-config-map-name=mine", "--leader-elect-resource-name=me"}, "mine", "me"},
	}
	for _, tt := range tests {
		o := newNodeAutoscalerFlags()
		cmd := newComponentCommand("node-autoscaler", "", o, commonSpec{})
		if err := cmd.ParseFlags(append([]string{"--cloud-provider=aws", "--nodes=1:3:asg"}, tt.args...)); err != nil {
			t.Fatal(err)
		}
		if err := cmd.PreRunE(cmd, nil); err != nil {
			t.Fatal(err)
		}
		if o.StatusName() != tt.wantStatus || o.Election().Name != tt.wantLe {
			t.Errorf("%v: status %q, Lease %q; want %q, %q", tt.args, o.StatusName(), o.Election().Name, tt.wantStatus, tt.wantLe)
		}
	}
}
