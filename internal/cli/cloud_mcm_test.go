package cli

import (
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"path/filepath"
	"strings"
	"testing"
)

func TestMCMBadFlags(t *testing.T) {
	tests := []struct {
		args []string
		env  map[string]string
		want string
	}{
		{args: []string{"--cloud-provider=mcm"}, want: "--nodes: --cloud-provider=mcm needs at least one"},
		{args: []string{"--cloud-provider=mcm", "--nodes=1:3:md"}, want: "<namespace>.<machinedeployment>"},
		{args: []string{"--cloud-provider=mcm", "--nodes=1:3:other.md"}, env: map[string]string{envControlNamespace: "shoot--p--c"}, want: "CONTROL_NAMESPACE"},
		{args: []string{"--cloud-provider=mcm", "--nodes=1:3:ns.md", "--node-group-auto-discovery=mcm:x"}, want: "--node-group-auto-discovery: not supported"},
		{args: []string{"--cloud-provider=mcm", "--nodes=1:3:ns.md", "--cloud-config=x"}, want: "--cloud-config: --cloud-provider=mcm reads no cloud config"},
		{args: []string{"--cloud-provider=mcm", "--nodes=1:3:ns.md", "--control-apiserver-qps=0"}, want: "--control-apiserver-qps: must be positive"},
		{args: []string{"--cloud-provider=kwok", "--control-apiserver-burst=20"}, want: "only for --cloud-provider=mcm"},
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

func TestMCMGoodFlags(t *testing.T) {
	t.Setenv(envControlNamespace, "shoot--p--c")
	f := cloudFlags{provider: "mcm", nodes: []string{"1:3:shoot--p--c.shoot--p--c-w-z1", "0:2:shoot--p--c.shoot--p--c-w-z2"},
		mcm: mcmFlags{controlQPS: 20, controlBurst: 30}}
	b, err := f.complete()
	if err != nil {
		t.Fatal(err)
	}
	c := b.(*mcmCloud)
	if c.cfg.Namespace != "shoot--p--c" || len(c.cfg.Groups) != 2 || c.cfg.Groups[1].Name != "shoot--p--c-w-z2" || c.cfg.Groups[1].Max != 2 || c.flags.controlQPS != 20 {
		t.Errorf("config %+v flags %+v", c.cfg, c.flags)
	}
}

func TestMCMTargetKubeconfigMustMatch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "target.kubeconfig")
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["t"] = &clientcmdapi.Cluster{Server: "https://shoot.example:443"}
	cfg.Contexts["t"] = &clientcmdapi.Context{Cluster: "t", AuthInfo: "u"}
	cfg.AuthInfos["u"] = &clientcmdapi.AuthInfo{Token: "x"}
	cfg.CurrentContext = "t"
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	c := &mcmCloud{targetKubeconfig: path}
	if err := c.checkTarget(&rest.Config{Host: "https://shoot.example:443"}); err != nil {
		t.Errorf("same target: %v", err)
	}
	if err := c.checkTarget(&rest.Config{Host: "https://other.example:443"}); err == nil || !strings.Contains(err.Error(), "must be the same target cluster") {
		t.Errorf("different target: %v", err)
	}
	if _, err := c.controlConfig(&rest.Config{}); err == nil || !strings.Contains(err.Error(), envControlKubeconfig) {
		t.Errorf("no in-cluster config and no CONTROL_KUBECONFIG: %v", err)
	}
	missing := &mcmCloud{targetKubeconfig: filepath.Join(t.TempDir(), "missing"), controlKubeconfig: filepath.Join(t.TempDir(), "missing")}
	if err := missing.checkTarget(&rest.Config{}); err == nil || !strings.Contains(err.Error(), envTargetKubeconfig) {
		t.Errorf("missing TARGET_KUBECONFIG file: %v", err)
	}
	if _, err := missing.controlConfig(&rest.Config{}); err == nil || !strings.Contains(err.Error(), envControlKubeconfig) {
		t.Errorf("missing CONTROL_KUBECONFIG file: %v", err)
	}
}
