package e2e

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"

	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/scenario"
	"github.com/kscale/kscale/internal/snapshot"
	"github.com/kscale/kscale/internal/testenv"
)

// TestSnapshotLiveCluster snapshots a real API server: nodes of an EKS
// style group and a control-plane node, a Deployment's running and pending
// pods, a PDB and the priority ConfigMap; then the same cluster with kwok
// nodes and a cloud config.
func TestSnapshotLiveCluster(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	ctx := t.Context()
	seedCluster(ctx, t, env)
	dir := t.TempDir()

	t.Run("groups from labels; simulate --check runs the file as it is", func(t *testing.T) {
		out := filepath.Join(dir, "snap.yaml")
		stderr := runSnapshot(t, "--kubeconfig="+env.KubeconfigPath, "--output="+out, "--max-size=5", "--page-size=2", "--duration=10m")
		scn := parseFile(t, out)
		if len(scn.NodeGroups) != 2 || scn.NodeGroups[0].Name != "spot" || scn.NodeGroups[0].Max != 5 || scn.NodeGroups[0].Target != 2 ||
			!slices.Equal(scn.NodeGroups[0].InstanceTypes, []string{"m5.large"}) || scn.NodeGroups[1].Name != "unmanaged-1" {
			t.Errorf("groups = %+v", scn.NodeGroups)
		}
		if len(scn.Nodes) != 3 {
			t.Errorf("nodes = %+v, want spot-1, spot-2 and cp", scn.Nodes)
		}
		web := workload(t, scn, "web")
		if web.Kind != "ReplicaSet" || web.Replicas != 4 || web.Scheduled != 3 || web.Pod.Priority != 1000 {
			t.Errorf("web = %+v, want 4 replicas, 3 scheduled and priority 1000", web)
		}
		// Every budget is written to the list with its own name and selector.
		if b := scn.PodDisruptionBudgets; len(b) != 1 || b[0].Name != "web" || b[0].Namespace != "default" || b[0].MaxUnavailable != "1" ||
			b[0].Selector == nil || b[0].Selector.Value.MatchLabels["app"] != "web" {
			t.Errorf("podDisruptionBudgets = %+v, want web's (maxUnavailable 1, app=web)", b)
		}
		if !slices.Equal(scn.Priorities[20], []string{"^spot$"}) {
			t.Errorf("priorities = %v", scn.Priorities)
		}
		if !strings.Contains(stderr, "warning: nodes in no node group: 1") {
			t.Errorf("stderr lacks the unmanaged node warning:\n%s", stderr)
		}
		data, _ := os.ReadFile(out)
		if !strings.Contains(string(data), "# - nodes in no node group: 1") {
			t.Errorf("the header lacks the notes:\n%s", data)
		}
		var simOut bytes.Buffer
		sim := command("simulate")
		sim.SetOut(&simOut)
		sim.SetErr(&simOut)
		sim.SetArgs([]string{out, "--check", "--output", "none"})
		if err := sim.Execute(); err != nil {
			t.Fatalf("kscale simulate --check on the snapshot: %v\n%s", err, simOut.String())
		}
	})

	t.Run("groups from the kwok cloud config, to stdout", func(t *testing.T) {
		for _, name := range []string{"k-1", "k-2"} {
			n := fixture.Node(name, fixture.WithProviderID("inmemory:///ng-kwok/"+name))
			if _, err := env.CreateNode(ctx, n); err != nil {
				t.Fatal(err)
			}
		}
		cfg := filepath.Join(dir, "cloud.yaml")
		if err := os.WriteFile(cfg, []byte("nodeGroups:\n- {name: ng-kwok, min: 1, max: 4, target: 1, resources: {cpu: \"4\", memory: 16Gi}}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		cmd := command("snapshot")
		cmd.SetOut(&stdout)
		cmd.SetErr(&stderr)
		cmd.SetArgs([]string{"--kubeconfig=" + env.KubeconfigPath, "--cloud-config=" + cfg})
		if err := cmd.Execute(); err != nil {
			t.Fatalf("snapshot: %v\n%s", err, stderr.String())
		}
		scn, err := scenario.Parse(stdout.Bytes())
		if err != nil {
			t.Fatalf("parsing the snapshot: %v\n%s", err, stdout.String())
		}
		g := scn.NodeGroups
		if len(g) < 2 || g[0].Name != "ng-kwok" || g[0].Min != 1 || g[0].Max != 4 || g[0].Target != 2 {
			t.Fatalf("groups = %+v, want ng-kwok with its two nodes first", g)
		}
		var kwokNodes []string
		for _, n := range scn.Nodes {
			if n.Group == "ng-kwok" {
				kwokNodes = append(kwokNodes, n.Name)
			}
		}
		if !slices.Equal(kwokNodes, []string{"k-1", "k-2"}) {
			t.Errorf("ng-kwok nodes = %v", kwokNodes)
		}
		if !strings.Contains(stderr.String(), "nodes in no node group: 3") {
			t.Errorf("stderr lacks the warning on the three nodes outside the cloud config:\n%s", stderr.String())
		}
	})
}

// seedCluster creates two m5.large nodes of EKS group "spot", an
// unlabelled control-plane node, a Deployment whose ReplicaSet has three
// running pods and one pending (priority 1000 from their class), a PDB over
// them and the priority ConfigMap.
func seedCluster(ctx context.Context, t *testing.T, env *testenv.Env) {
	t.Helper()
	for _, n := range []*corev1.Node{
		fixture.Node("spot-1", fixture.WithCapacity(corev1.ResourceCPU, "2"), fixture.WithCapacity(corev1.ResourceMemory, "8Gi"),
			fixture.WithNodeLabels(map[string]string{"eks.amazonaws.com/nodegroup": "spot", "node.kubernetes.io/instance-type": "m5.large"})),
		fixture.Node("spot-2", fixture.WithCapacity(corev1.ResourceCPU, "2"), fixture.WithCapacity(corev1.ResourceMemory, "8Gi"),
			fixture.WithNodeLabels(map[string]string{"eks.amazonaws.com/nodegroup": "spot", "node.kubernetes.io/instance-type": "m5.large"})),
		fixture.Node("cp", fixture.WithNodeLabels(map[string]string{"node-role.kubernetes.io/control-plane": ""})),
	} {
		if _, err := env.CreateNode(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	c := env.Client
	dep, err := c.AppsV1().Deployments("default").Create(ctx, fixture.Deployment("web", 4), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000}
	if _, err := c.SchedulingV1().PriorityClasses().Create(ctx, pc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	yes := true
	rs := fixture.ReplicaSet("web-7c9d", 4, fixture.WithLabels(map[string]string{"pod-template-hash": "7c9d"}))
	rs.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: dep.Name, UID: dep.UID, Controller: &yes}}
	rs.Spec.Selector.MatchLabels["pod-template-hash"] = "7c9d"
	rs, err = c.AppsV1().ReplicaSets("default").Create(ctx, rs, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, node := range []string{"spot-1", "spot-1", "spot-2", ""} {
		opts := []fixture.PodOption{fixture.WithLabels(map[string]string{"app": "web", "pod-template-hash": "7c9d"}),
			fixture.WithRequests("cpu", "500m", "memory", "1Gi"), func(p *corev1.Pod) { p.Spec.PriorityClassName = "high" },
			fixture.WithOwner(appsv1.SchemeGroupVersion.WithKind("ReplicaSet"), rs.Name, rs.UID)}
		if node != "" {
			opts = append(opts, fixture.OnNode(node), fixture.Running())
		} else {
			opts = append(opts, fixture.UnschedulablePod())
		}
		createPod(ctx, t, c, fixture.Pod("web-7c9d-"+string(rune('a'+i)), opts...))
	}
	if _, err := c.PolicyV1().PodDisruptionBudgets("default").Create(ctx, fixture.PDB("web", "web", fixture.MaxUnavailable(intstr.FromInt32(1))), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: snapshot.PriorityConfigMapName},
		Data: map[string]string{"priorities": "20:\n  - ^spot$\n1:\n  - .*\n"}}
	if _, err := c.CoreV1().ConfigMaps("kube-system").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// createPod creates a pod and writes its status (the API ignores status on
// create).
func createPod(ctx context.Context, t *testing.T, c kubernetes.Interface, p *corev1.Pod) {
	t.Helper()
	status := p.Status
	created, err := c.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created.Status = status
	if _, err := c.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func runSnapshot(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := command("snapshot")
	cmd.SetOut(&stdout)
	cmd.SetErr(&stderr)
	cmd.SetArgs(args)
	if err := cmd.Execute(); err != nil {
		t.Fatalf("snapshot %v: %v\n%s", args, err, stderr.String())
	}
	return stderr.String()
}

func parseFile(t *testing.T, path string) *scenario.Scenario {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	scn, err := scenario.Parse(data)
	if err != nil {
		t.Fatalf("parsing %s: %v\n%s", path, err, data)
	}
	return scn
}

func workload(t *testing.T, scn *scenario.Scenario, name string) scenario.Workload {
	t.Helper()
	for _, w := range scn.Workloads {
		if w.Name == name {
			return w
		}
	}
	t.Fatalf("no workload %q in %+v", name, scn.Workloads)
	return scenario.Workload{}
}
