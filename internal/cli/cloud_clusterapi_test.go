package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/kscale/kscale/internal/cloudprovider/clusterapi"
)

func TestClusterAPIBadFlags(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.kubeconfig")
	tests := []struct {
		args []string
		env  map[string]string
		want string
	}{
		{args: []string{"--cloud-provider=clusterapi", "--nodes=1:3:md"}, want: "--nodes: not supported by --cloud-provider=clusterapi"},
		{args: []string{"--cloud-provider=clusterapi", "--node-group-auto-discovery=asg:tag=x"}, want: "--node-group-auto-discovery"},
		{args: []string{"--cloud-provider=clusterapi", "--node-group-auto-discovery=clusterapi:namespace=Bad"}, want: "namespace"},
		{args: []string{"--cloud-provider=clusterapi", "--cloud-config=" + missing}, want: "--cloud-config (the management cluster's kubeconfig)"},
		{args: []string{"--cloud-provider=clusterapi"}, env: map[string]string{clusterapi.EnvDefaultArch: "sparc"}, want: clusterapi.EnvDefaultArch},
		{args: []string{"--cloud-provider=clusterapi"}, env: map[string]string{clusterapi.EnvGroup: "Not A Group"}, want: clusterapi.EnvGroup},
		{args: []string{"--cloud-provider=clusterapi"}, env: map[string]string{clusterapi.EnvVersion: "v1/beta"}, want: clusterapi.EnvVersion},
		{args: []string{"--cloud-provider=kwok", "--clusterapi-cloud-config-authoritative"}, want: "only for --cloud-provider=clusterapi"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			expectUsageError(t, newNodeAutoscalerCommand(), tt.args, tt.want)
		})
	}
}

// TestClusterAPITraitsReachOptions checks that the provider's startup
// taint and GPU label reach the autoscaler's options.
func TestClusterAPITraitsReachOptions(t *testing.T) {
	o := newNodeAutoscalerFlags()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	o.AddFlags(fs)
	if err := fs.Parse([]string{"--cloud-provider=clusterapi"}); err != nil {
		t.Fatal(err)
	}
	if err := o.Complete(); err != nil {
		t.Fatal(err)
	}
	opts := o.Options()
	if !strings.Contains(strings.Join(opts.StartupTaints, ","), clusterapi.UninitializedTaint) {
		t.Errorf("startup taints %v lack %s", opts.StartupTaints, clusterapi.UninitializedTaint)
	}
	if opts.GPULabel != clusterapi.GPULabel {
		t.Errorf("GPU label %q, want %q", opts.GPULabel, clusterapi.GPULabel)
	}
}
