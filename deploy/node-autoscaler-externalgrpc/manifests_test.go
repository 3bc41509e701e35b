// Package nodeautoscalerexternalgrpc_test checks the externalgrpc
// node-autoscaler manifests against a real API server: every object of the
// kustomization is accepted, the cloud config in the Secret parses and its
// TLS files and the --cloud-config flag point into the mounted volumes, and
// the RBAC denies what the provider never needs (no cloud-specific rule:
// creating or deleting nodes, writing pod status, node Leases, reading
// Secrets). That the RBAC suffices is shown by the externalgrpc end-to-end
// test in internal/cli, which runs the command under this ServiceAccount.
package nodeautoscalerexternalgrpc_test

import (
	"path"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kscale/kscale/internal/cloudprovider/externalgrpc"
	"github.com/kscale/kscale/internal/manifesttest"
	"github.com/kscale/kscale/internal/testenv"
)

func TestManifests(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	objs := manifesttest.Load(t, ".")
	var config *externalgrpc.CloudConfig
	var deployment *unstructured.Unstructured
	for _, obj := range objs {
		switch obj.GetKind() {
		case "Secret":
			data, _, _ := unstructured.NestedString(obj.Object, "stringData", "cloud-config.yaml")
			c, err := externalgrpc.ParseCloudConfig([]byte(data))
			if err != nil {
				t.Fatalf("Secret %s: %v", obj.GetName(), err)
			}
			config = c
		case "Deployment":
			deployment = obj
		case "ConfigMap":
			t.Errorf("ConfigMap %s: the cloud config belongs in the Secret", obj.GetName())
		}
	}
	if config == nil || deployment == nil {
		t.Fatalf("want a cloud-config Secret and a Deployment, got config %v, deployment %v", config, deployment)
	}
	checkMounts(t, deployment, config)
	manifesttest.Create(t, env, objs)
	allowed, denied := manifesttest.CloudNodeAutoscalerAccess("node-1", "web-1")
	// The kubelet, not the node autoscaler, reads the mounted Secrets.
	denied = append(denied,
		manifesttest.Access{Verb: "get", Resource: "secrets", Namespace: "kube-system", Name: "kscale-node-autoscaler-cloud-config"},
		manifesttest.Access{Verb: "get", Resource: "secrets", Namespace: "kube-system", Name: "kscale-node-autoscaler-externalgrpc-tls"})
	manifesttest.ExpectAccess(t, env, "kube-system", "kscale-node-autoscaler", allowed, denied)
}

// checkMounts checks that the container runs the externalgrpc provider
// with --cloud-config in the mounted cloud-config Secret, and that the
// config's TLS files lie in the mounted TLS Secret.
func checkMounts(t *testing.T, deployment *unstructured.Unstructured, config *externalgrpc.CloudConfig) {
	t.Helper()
	containers, _, _ := unstructured.NestedSlice(deployment.Object, "spec", "template", "spec", "containers")
	if len(containers) != 1 {
		t.Fatalf("Deployment %s: %d containers", deployment.GetName(), len(containers))
	}
	container := containers[0].(map[string]any)
	args, _, _ := unstructured.NestedStringSlice(container, "args")
	if !slices.Contains(args, "--cloud-provider=externalgrpc") {
		t.Errorf("args %v lack --cloud-provider=externalgrpc", args)
	}
	mounts := secretMounts(t, deployment, container)
	var cloudConfig string
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--cloud-config="); ok {
			cloudConfig = v
		}
		if strings.HasPrefix(a, "--nodes") || strings.HasPrefix(a, "--node-group-auto-discovery") {
			t.Errorf("arg %s: the server names the node groups", a)
		}
	}
	if mounts[path.Dir(cloudConfig)] != "kscale-node-autoscaler-cloud-config" || path.Base(cloudConfig) != "cloud-config.yaml" {
		t.Errorf("--cloud-config=%q is not cloud-config.yaml in the mounted cloud-config Secret (mounts %v)", cloudConfig, mounts)
	}
	for key, file := range map[string]string{"cert": config.Cert, "key": config.Key, "cacert": config.Cacert} {
		if mounts[path.Dir(file)] != "kscale-node-autoscaler-externalgrpc-tls" {
			t.Errorf("cloud config %s: %q is not in the mounted TLS Secret (mounts %v)", key, file, mounts)
		}
	}
}

// secretMounts maps the container's mount paths to the Secrets mounted
// there.
func secretMounts(t *testing.T, deployment *unstructured.Unstructured, container map[string]any) map[string]string {
	t.Helper()
	volumes, _, _ := unstructured.NestedSlice(deployment.Object, "spec", "template", "spec", "volumes")
	secrets := map[string]string{}
	for _, v := range volumes {
		vol := v.(map[string]any)
		name, _, _ := unstructured.NestedString(vol, "secret", "secretName")
		secrets[vol["name"].(string)] = name
	}
	mounts, _, _ := unstructured.NestedSlice(container, "volumeMounts")
	out := map[string]string{}
	for _, m := range mounts {
		mount := m.(map[string]any)
		out[mount["mountPath"].(string)] = secrets[mount["name"].(string)]
	}
	return out
}
