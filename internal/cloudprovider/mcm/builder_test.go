package mcm

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kscale/kscale/internal/cloudprovider/registry"
)

func TestBuilderCompletesFromFlagsAndEnvironment(t *testing.T) {
	t.Setenv(EnvControlNamespace, "shoot--p--c")
	b := NewBuilder().(*Builder)
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	b.AddFlags(fs)
	if err := fs.Parse([]string{"--control-apiserver-qps=20", "--control-apiserver-burst=30"}); err != nil {
		t.Fatal(err)
	}
	if err := b.Unselected("kwok"); err == nil {
		t.Error("changed control flags accepted under another provider")
	}
	err := b.Complete(registry.Common{Provider: "mcm", Nodes: []string{"1:3:shoot--p--c.shoot--p--c-w-z1", "0:2:shoot--p--c.shoot--p--c-w-z2"}})
	if err != nil {
		t.Fatal(err)
	}
	c := b.Config()
	if c.Namespace != "shoot--p--c" || len(c.Groups) != 2 || c.Groups[1].Name != "shoot--p--c-w-z2" || c.Groups[1].Max != 2 || b.controlQPS != 20 {
		t.Errorf("config %+v qps %v", c, b.controlQPS)
	}
}

func TestBuilderTargetKubeconfigMustMatch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "target.kubeconfig")
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["t"] = &clientcmdapi.Cluster{Server: "https://shoot.example:443"}
	cfg.Contexts["t"] = &clientcmdapi.Context{Cluster: "t", AuthInfo: "u"}
	cfg.AuthInfos["u"] = &clientcmdapi.AuthInfo{Token: "x"}
	cfg.CurrentContext = "t"
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	b := &Builder{targetKubeconfig: path}
	if err := b.checkTarget(&rest.Config{Host: "https://shoot.example:443"}); err != nil {
		t.Errorf("same target: %v", err)
	}
	if err := b.checkTarget(&rest.Config{Host: "https://other.example:443"}); err == nil || !strings.Contains(err.Error(), "must be the same target cluster") {
		t.Errorf("different target: %v", err)
	}
	if _, err := b.controlConfig(&rest.Config{}); err == nil || !strings.Contains(err.Error(), EnvControlKubeconfig) {
		t.Errorf("no in-cluster config and no CONTROL_KUBECONFIG: %v", err)
	}
	missing := &Builder{targetKubeconfig: filepath.Join(t.TempDir(), "missing"), controlKubeconfig: filepath.Join(t.TempDir(), "missing")}
	if err := missing.checkTarget(&rest.Config{}); err == nil || !strings.Contains(err.Error(), EnvTargetKubeconfig) {
		t.Errorf("missing TARGET_KUBECONFIG file: %v", err)
	}
	if _, err := missing.controlConfig(&rest.Config{}); err == nil || !strings.Contains(err.Error(), EnvControlKubeconfig) {
		t.Errorf("missing CONTROL_KUBECONFIG file: %v", err)
	}
}
