package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSnapshotFlagDefaults(t *testing.T) {
	cmd := newSnapshotCommand()
	expectDefaults(t, cmd.Flags().Lookup, map[string]string{
		"kubeconfig":   "",
		"cloud-config": "",
		"min-size":     "-1",
		"max-size":     "-1",
		"namespace":    "kube-system",
		"duration":     "30m0s",
		"output":       "-",
		"page-size":    "500",
		"node-group-label": "[node.kubernetes.io/node-pool,worker.gardener.cloud/pool,eks.amazonaws.com/nodegroup," +
			"cloud.google.com/gke-nodepool,kubernetes.azure.com/agentpool,karpenter.sh/nodepool,kops.k8s.io/instancegroup]",
	})
}

func TestSnapshotBadFlags(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("nodeGroups:\n- {name: a, max: 1, instanceTypes: [m9.huge]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--duration=0s"}, "duration"},
		{[]string{"--duration=800h"}, "duration"},
		{[]string{"--min-size=3", "--max-size=2"}, "above maxSize"},
		{[]string{"--max-size=0"}, "maxSize"},
		{[]string{"--page-size=0"}, "--page-size"},
		{[]string{"--namespace="}, "--namespace"},
		{[]string{"--kubeconfig=" + filepath.Join(dir, "missing")}, "--kubeconfig"},
		{[]string{"out.yaml"}, "no arguments"},
		{[]string{"--cloud-config=" + filepath.Join(dir, "missing.yaml")}, "--cloud-config"},
		{[]string{"--cloud-config=" + bad}, "m9.huge"},
		{[]string{"--cloud-config=" + bad, "--max-size=3"}, "only without --cloud-config"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			expectUsageError(t, newSnapshotCommand(), tt.args, tt.want)
		})
	}
}
