package cli

import (
	"path/filepath"
	"strings"
	"testing"
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
		{args: []string{"--cloud-provider=clusterapi"}, env: map[string]string{envCAPIDefaultArch: "sparc"}, want: envCAPIDefaultArch},
		{args: []string{"--cloud-provider=clusterapi"}, env: map[string]string{envCAPIGroup: "Not A Group"}, want: envCAPIGroup},
		{args: []string{"--cloud-provider=clusterapi"}, env: map[string]string{envCAPIVersion: "v1/beta"}, want: envCAPIVersion},
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

func TestClusterAPIGoodFlags(t *testing.T) {
	t.Setenv(envCAPIGroup, "cluster.example.com")
	t.Setenv(envCAPIDefaultArch, "arm64")
	f := cloudFlags{provider: "clusterapi", autoDiscovery: []string{"clusterapi:namespace=a,team=x", "clusterapi:clusterName=c"}}
	b, err := f.complete()
	if err != nil {
		t.Fatal(err)
	}
	c := b.(*clusterAPICloud)
	if st, ok := b.(startupTainter); !ok || len(st.startupTaints()) != 1 || st.startupTaints()[0] != "node.cluster.x-k8s.io/uninitialized" {
		t.Errorf("the clusterapi builder must name CAPI's uninitialized taint as a startup taint")
	}
	if gl, ok := b.(gpuLabeler); !ok || gl.gpuLabel() != "cluster-api/accelerator" {
		t.Errorf("the clusterapi builder must name upstream's GPU label cluster-api/accelerator")
	}
	if c.cfg.Group != "cluster.example.com" || c.cfg.DefaultArch != "arm64" || len(c.cfg.Specs) != 2 || c.cfg.Specs[0].Namespace != "a" {
		t.Errorf("config %+v", c.cfg)
	}
}
