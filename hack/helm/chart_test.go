package chartcheck

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestLint runs Helm's linter on the chart with every values file.
func TestLint(t *testing.T) {
	files, err := filepath.Glob("testdata/values/*.yaml")
	if err != nil || len(files) < 5 {
		t.Fatalf("values files: %v %v", files, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			msgs, err := Lint(chartDir, "kscale-system", readValues(t, f))
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range msgs {
				t.Errorf("lint: %s", m)
			}
		})
	}
}

// TestLintReports checks that Lint passes on what Helm's linter flags: a
// chart whose Chart.yaml lacks its version.
func TestLintReports(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(chartDir)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Chart.yaml"), []byte("apiVersion: v2\nname: kscale\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	msgs, err := Lint(dir, "kube-system", nil)
	if err != nil || len(msgs) == 0 || !strings.Contains(fmt.Sprint(msgs), "version is required") {
		t.Errorf("Lint = %v, %v; want the missing version reported", msgs, err)
	}
}

// TestRenderValues checks what values turn into: auto-discovery as
// upstream's chart renders it, extraArgs as flags, the priority expander
// ConfigMap, leader election following the replicas, the chart-managed
// webhook configuration and cert-manager objects.
func TestRenderValues(t *testing.T) {
	render := func(t *testing.T, file string) *Rendered {
		t.Helper()
		r, err := Render(chartDir, Release{Name: "kscale", Namespace: "kscale-system"}, readValues(t, "testdata/values/"+file))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	t.Run("aws auto-discovery by tags", func(t *testing.T) {
		r := render(t, "aws.yaml")
		a := args(t, r, "kscale-node-autoscaler")
		expectArgs(t, a, "--cloud-provider=aws", "--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/demo")
		if hasArg(a, "~--cloud-config") || find(r, "ConfigMap", "kscale-node-autoscaler-cloud-config") != nil || find(r, "Role", "kscale:node-autoscaler-node-leases") != nil {
			t.Errorf("aws rendering carries kwok's cloud config or node lease Role: %q", a)
		}
	})
	t.Run("clusterapi auto-discovery, management kubeconfig", func(t *testing.T) {
		r := render(t, "clusterapi.yaml")
		a := args(t, r, "kscale-node-autoscaler")
		expectArgs(t, a, "--cloud-provider=clusterapi", "--node-group-auto-discovery=clusterapi:namespace=capi,clusterName=demo,pool=general",
			"--cloud-config=/etc/kubernetes/mgmt-kubeconfig")
		if find(r, "ClusterRole", "kscale:node-autoscaler-clusterapi-management") != nil {
			t.Error("the Cluster API rules are granted in the workload cluster with a separate management cluster")
		}
		d := find(r, "Deployment", "kscale-node-autoscaler")
		volumes, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "volumes")
		if len(volumes) != 1 {
			t.Fatalf("volumes %v, want the management kubeconfig Secret", volumes)
		}
		if name, _, _ := unstructured.NestedString(volumes[0].(map[string]any), "secret", "secretName"); name != "kscale-management-kubeconfig" {
			t.Errorf("volume %v, want the Secret kscale-management-kubeconfig", volumes[0])
		}
	})
	t.Run("externalgrpc with mutual TLS", func(t *testing.T) {
		r := render(t, "externalgrpc.yaml")
		expectArgs(t, args(t, r, "kscale-node-autoscaler"), "--cloud-provider=externalgrpc", "--cloud-config=/etc/kscale/cloud-config.yaml")
		secret := find(r, "Secret", "kscale-node-autoscaler-cloud-config")
		if secret == nil || find(r, "ConfigMap", "kscale-node-autoscaler-cloud-config") != nil {
			t.Fatal("want the cloud config in a Secret, not a ConfigMap")
		}
		if got, _, _ := unstructured.NestedString(secret.Object, "stringData", "cloud-config.yaml"); !strings.HasPrefix(got, "address: externalgrpc-provider.kube-system.svc:8086\n") {
			t.Errorf("cloud config = %q", got)
		}
		if find(r, "Role", "kscale:node-autoscaler-node-leases") != nil {
			t.Error("externalgrpc rendering carries kwok's node lease Role")
		}
		d := find(r, "Deployment", "kscale-node-autoscaler")
		volumes, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "volumes")
		if len(volumes) != 2 {
			t.Fatalf("volumes %v, want the cloud config and the TLS Secret", volumes)
		}
		if name, _, _ := unstructured.NestedString(volumes[1].(map[string]any), "secret", "secretName"); name != "kscale-externalgrpc-tls" {
			t.Errorf("volume %v, want the Secret kscale-externalgrpc-tls", volumes[1])
		}
	})
	t.Run("node autoscaler alone", func(t *testing.T) {
		r := render(t, "node-autoscaler-only.yaml")
		a := args(t, r, "kscale-node-autoscaler")
		expectArgs(t, a, "--leader-elect=false", "--namespace=kscale-system", "--expander=priority,least-waste",
			"--scale-down-enabled=true", "--balance-similar-node-groups", "--v=4")
		cm := find(r, "ConfigMap", "cluster-autoscaler-priority-expander")
		if cm == nil {
			t.Fatal("no priority expander ConfigMap")
		}
		if got, _, _ := unstructured.NestedString(cm.Object, "data", "priorities"); got != "10:\n  - .*\n50:\n  - compute" {
			t.Errorf("priorities = %q", got)
		}
		if cm.GetAnnotations()["team"] != "autoscaling" {
			t.Errorf("priority ConfigMap annotations = %v", cm.GetAnnotations())
		}
		pdb := find(r, "PodDisruptionBudget", "kscale-node-autoscaler")
		if v, _, _ := unstructured.NestedFieldNoCopy(pdb.Object, "spec", "minAvailable"); v != float64(1) {
			t.Errorf("PDB = %v, want minAvailable 1", pdb.Object["spec"])
		}
		if sm := find(r, "ServiceMonitor", "kscale-node-autoscaler"); sm == nil || sm.GetNamespace() != "monitoring" || sm.GetLabels()["release"] != "kube-prometheus-stack" {
			t.Errorf("ServiceMonitor = %v", sm)
		}
		rule := find(r, "PrometheusRule", "kscale-node-autoscaler")
		groups, _, _ := unstructured.NestedSlice(rule.Object, "spec", "groups")
		rules := groups[0].(map[string]any)["rules"].([]any)
		var names []string
		for _, r := range rules {
			names = append(names, r.(map[string]any)["alert"].(string))
		}
		if strings.Join(names, ",") != "KscaleNodeGroupBackedOff,KscaleUnschedulablePods,KscaleNodeAutoscalerLoopStuck,KscaleNodeAutoscalerDown" {
			t.Errorf("alerts = %v", names)
		}
		for _, kind := range []string{"MutatingWebhookConfiguration", "APIService", "Deployment"} {
			if o := find(r, kind, ""); o != nil && o.GetName() != "kscale-node-autoscaler" {
				t.Errorf("node autoscaler release renders %s %s", kind, o.GetName())
			}
		}
	})
	t.Run("VPA alone", func(t *testing.T) {
		r := render(t, "vpa-only.yaml")
		expectArgs(t, args(t, r, "kscale-vpa-recommender"), "--leader-elect=false")
		expectArgs(t, args(t, r, "kscale-vpa-admission"), "--register-webhook=false", "--self-signed-cert-secret=kscale-vpa-webhook-tls",
			"--ignored-vpa-object-namespaces=kube-system")
		if find(r, "Role", "kscale:vpa-recommender:leader-election") != nil {
			t.Error("leader election Role rendered without leader election")
		}
		if find(r, "MutatingWebhookConfiguration", "vpa-webhook-config") == nil || find(r, "PodDisruptionBudget", "kscale-vpa-updater") == nil {
			t.Error("webhook configuration or updater PDB missing")
		}
		for _, o := range r.Objects {
			if o.GetLabels()["team"] != "autoscaling" {
				t.Errorf("%s %s lacks commonLabels", o.GetKind(), o.GetName())
			}
		}
	})
	t.Run("cert-manager", func(t *testing.T) {
		r := render(t, "cert-manager.yaml")
		expectArgs(t, args(t, r, "kscale-vpa-admission"), "--tls-cert-file=/etc/tls-certs/tls.crt", "--client-ca-file=/etc/tls-certs/ca.crt",
			"--reload-cert=true", "--webhook-failure-policy-fail=true", "--webhook-timeout-seconds=10")
		expectArgs(t, args(t, r, "kscale-custom-metrics"), "--tls-cert-file=/etc/tls-certs/tls.crt", "--tls-private-key-file=/etc/tls-certs/tls.key")
		if a := args(t, r, "kscale-vpa-admission"); hasArg(a, "~--self-signed") {
			t.Errorf("self-signed flag with cert-manager: %q", a)
		}
		mwc := find(r, "MutatingWebhookConfiguration", "vpa-webhook-config")
		if mwc == nil || mwc.GetAnnotations()["cert-manager.io/inject-ca-from"] != "kscale-system/kscale-vpa-admission" {
			t.Errorf("webhook configuration without cert-manager's CA injection: %v", mwc)
		}
		api := find(r, "APIService", "v1beta2.custom.metrics.k8s.io")
		if api == nil || api.GetAnnotations()["cert-manager.io/inject-ca-from"] != "kscale-system/kscale-custom-metrics" {
			t.Errorf("APIService without cert-manager's CA injection: %v", api)
		}
		for _, name := range []string{"kscale-vpa-admission", "kscale-vpa-admission-ca", "kscale-custom-metrics"} {
			if find(r, "Certificate", name) == nil {
				t.Errorf("Certificate %s missing", name)
			}
		}
		cert := find(r, "Certificate", "kscale-custom-metrics")
		if kind, _, _ := unstructured.NestedString(cert.Object, "spec", "issuerRef", "kind"); kind != "ClusterIssuer" {
			t.Errorf("custom metrics certificate issuer kind %q", kind)
		}
	})
}

// TestBadValues checks that contradictory, misspelt or mistyped values
// fail with the value named.
func TestBadValues(t *testing.T) {
	tests := []struct {
		values map[string]any
		want   string
	}{
		{map[string]any{"clusterAutoscaler": map[string]any{"podDisruptionBudget": map[string]any{"minAvailable": 1, "maxUnavailable": 1}}},
			"clusterAutoscaler.podDisruptionBudget: set minAvailable or maxUnavailable, not both"},
		{map[string]any{"admissionController": map[string]any{"registerWebhook": false, "certManager": map[string]any{"enabled": true}}},
			"admissionController.certManager.issuerRef.name: required"},
		{map[string]any{"admissionController": map[string]any{"certManager": map[string]any{"enabled": true, "issuerRef": map[string]any{"name": "ca"}}}},
			"admissionController.certManager.enabled: needs admissionController.registerWebhook=false"},
		{map[string]any{"admissionController": map[string]any{"mutatingWebhookConfiguration": map[string]any{"failurePolicy": "Sometimes"}}},
			"admissionController.mutatingWebhookConfiguration.failurePolicy: Ignore or Fail"},
		// values.schema.json: a misspelt value or a wrong type is refused, not ignored.
		{map[string]any{"clusterAutoscaler": map[string]any{"replicaCounts": 3}}, "replicaCounts"},
		{map[string]any{"image": map[string]any{"pullPolicy": "Sometimes"}}, "/image/pullPolicy"},
		{map[string]any{"recommender": map[string]any{"extraArgs": "--v=4"}}, "/recommender/extraArgs"},
		{map[string]any{"clusterAutoscaler": map[string]any{"cloudProvider": "gce"}}, "/clusterAutoscaler/cloudProvider"},
		{map[string]any{"clusterAutoscaler": map[string]any{"serviceAccount": map[string]any{"name": "ca"}}}, "serviceAccount"},
		{map[string]any{"clusterAutoscaler": map[string]any{"cloudProvider": "clusterapi", "clusterAPIMode": "incluster-kubeconfig"}},
			"clusterAutoscaler.clusterAPIKubeconfigSecret: required with clusterAPIMode incluster-kubeconfig"},
		{map[string]any{"clusterAutoscaler": map[string]any{"dryRun": true}}, "clusterAutoscaler.dryRun: not supported with cloudProvider kwok"},
		{map[string]any{"clusterAutoscaler": map[string]any{"cloudProvider": "externalgrpc"}}, "clusterAutoscaler.externalGRPC.cloudConfig: required"},
		{map[string]any{"clusterAutoscaler": map[string]any{"dryRun": "yes"}}, "/clusterAutoscaler/dryRun"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			_, err := Render(chartDir, Release{Name: "kscale", Namespace: "kube-system"}, tt.values)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Render error = %v, want one containing %q", err, tt.want)
			}

		})
	}
}

func expectArgs(t *testing.T, args []string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !hasArg(args, w) {
			t.Errorf("args %q lack %s", args, w)
		}
	}
}

// find returns the rendered object of kind and name ("" for any name), or nil.
func find(r *Rendered, kind, name string) *unstructured.Unstructured {
	for _, o := range append(r.CRDs, r.Objects...) {
		if o.GetKind() == kind && (name == "" || o.GetName() == name) {
			return o
		}
	}
	return nil
}
