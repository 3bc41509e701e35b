package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kscale/kscale/internal/cloudprovider/clusterapi"
	"github.com/kscale/kscale/internal/cloudprovider/clusterapi/clusterapitest"
	"github.com/kscale/kscale/internal/nodeautoscaler/live"
	"github.com/kscale/kscale/internal/testenv/capienv"
	"github.com/kscale/kscale/internal/testenv/machinesim"
)

// capiNamespace holds the Cluster API objects in the management cluster.
const capiNamespace = "clusters"

// capiMDLabel names a node's MachineDeployment (set by the stand-in
// infrastructure provider, as a kubelet's --node-labels would).
const capiMDLabel = "kscale.test/md"

// capiUnneededOption is the per-group scale-down unneeded time annotation.
const capiUnneededOption = clusterapi.DefaultGroup + "/autoscaling-options-scaledownunneededtime"

// capiWorld is the shared machineWorld with the real Cluster API CRDs and
// the real Cluster API core controller manager in the management cluster,
// and the stand-in infrastructure provider as the cloud (capienv).
type capiWorld struct {
	*machineWorld
	capi *capienv.Controllers
}

// capiRBAC names the manifests that grant the command its rights: the
// files of overlay applied to the workload and to the management cluster,
// and the ServiceAccount they bind.
type capiRBAC struct {
	overlay              string
	workload, management []string
	account              string
}

// capiLiveRBAC is the clusterapi overlay's RBAC.
var capiLiveRBAC = capiRBAC{overlay: "../../deploy/node-autoscaler-clusterapi", account: "kscale-node-autoscaler",
	workload: []string{"serviceaccount.yaml", "rbac.yaml"}, management: []string{"serviceaccount.yaml", "rbac-management.yaml"}}

// capiSetup starts both clusters, applies the clusterapi overlay's RBAC
// (workload rules in the workload cluster, management rules in the
// management cluster) and returns the kubeconfigs of the two
// ServiceAccounts the command runs as.
func capiSetup(t *testing.T) (w *capiWorld, workloadKubeconfig, managementKubeconfig string) {
	t.Helper()
	return capiSetupWith(t, capiLiveRBAC, nil, nil)
}

// capiSetupWith is capiSetup with other RBAC and extra kube-apiserver
// flags for the workload and the management cluster.
func capiSetupWith(t *testing.T, rbac capiRBAC, workloadFlags, managementFlags []string) (w *capiWorld, workloadKubeconfig, managementKubeconfig string) {
	t.Helper()
	w = &capiWorld{machineWorld: startMachineWorldWith(t, capienv.Install, capiNamespace, workloadFlags, managementFlags)}
	ctx := t.Context()
	prio := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: live.PriorityConfigMapName, Namespace: "kube-system"},
		Data: map[string]string{live.PriorityConfigMapKey: "50: ['.*preferred.*']\n10: ['.*']\n"}}
	if _, err := w.workload.Client.CoreV1().ConfigMaps("kube-system").Create(ctx, prio, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	applyManifests(t, vpaTestClient(t, w.workload), rbac.overlay, rbac.workload...)
	applyManifests(t, vpaTestClient(t, w.management), rbac.overlay, rbac.management...)
	shape := func(md, pool, cpu, mem string) machinesim.Shape {
		return machinesim.Shape{Labels: map[string]string{capiMDLabel: md, "pool": pool, corev1.LabelInstanceTypeStable: "sim-" + cpu + "cpu"},
			Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem), corev1.ResourcePods: resource.MustParse("110")}}
	}
	w.capi = capienv.Start(t, capienv.Config{Management: w.management, Workload: w.workload, Namespace: capiNamespace,
		Infra: capienv.InfraConfig{Timing: machinesim.Timing{BootTime: time.Second}, Shapes: map[string]machinesim.Shape{
			capiNamespace + "/md-small":             shape("md-small", "small", "2", "8Gi"),
			capiNamespace + "/md-big":               shape("md-big", "big", "8", "32Gi"),
			capiNamespace + "/md-preferred":         shape("md-preferred", "spill", "4", "16Gi"),
			capiNamespace + "/md-fallback":          shape("md-fallback", "spill", "4", "16Gi"),
			capiNamespace + "/md-preferred-v1beta2": shape("md-preferred-v1beta2", "spill2", "4", "16Gi"),
			capiNamespace + "/md-fallback-v1beta2":  shape("md-fallback-v1beta2", "spill2", "4", "16Gi"),
		}}})
	w.createMDs(t)
	return w, serviceAccountKubeconfig(t, w.workload, rbac.account), serviceAccountKubeconfig(t, w.management, rbac.account)
}

// createMDs creates the node groups: md-small (one node, no capacity
// annotations: it grows from its live node; its own 2s unneeded time),
// md-big (at zero, capacity annotations), md-none (at zero, nothing to
// build a template from; an unparsable option), md-preferred/md-fallback
// for pool "spill" and their v1beta2 twins for pool "spill2".
func (w *capiWorld) createMDs(t *testing.T) {
	t.Helper()
	capacity := func(cpu, mem, pool string) map[string]string {
		a := clusterapitest.CapacityAnnotations(cpu, mem)
		a[clusterapi.LabelsAnnotation] = "pool=" + pool
		return a
	}
	mds := []clusterapitest.Scalable{
		{Name: "md-small", Replicas: 1, Min: 1, Max: 4, Annotations: map[string]string{capiUnneededOption: "2s"}},
		{Name: "md-big", Max: 3, Annotations: capacity("8", "32Gi", "big")},
		{Name: "md-none", Max: 3, Annotations: map[string]string{capiUnneededOption: "soon"}},
		{Name: "md-preferred", Max: 3, Annotations: capacity("4", "16Gi", "spill")},
		{Name: "md-fallback", Max: 3, Annotations: capacity("4", "16Gi", "spill")},
		{Name: "md-preferred-v1beta2", Max: 3, Annotations: capacity("4", "16Gi", "spill2")},
		{Name: "md-fallback-v1beta2", Max: 3, Annotations: capacity("4", "16Gi", "spill2")},
		// Another cluster's group: the discovery spec leaves it alone.
		{Name: "md-other-cluster", Cluster: "other", Max: 3, Annotations: capacity("8", "32Gi", "big")},
	}
	for _, s := range mds {
		s.Namespace = capiNamespace
		// The MachineSet controller clones each Machine's SimMachine from
		// the template (no status: the annotations are the only capacity).
		tmpl := clusterapitest.InfraTemplate(capiNamespace, s.Name)
		if _, err := w.dyn.Resource(clusterapitest.InfraTemplates).Namespace(capiNamespace).Create(t.Context(), tmpl, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating the SimMachineTemplate of %s: %v", s.Name, err)
		}
		obj := s.Object()
		if _, err := w.dyn.Resource(clusterapitest.MachineDeployments).Namespace(capiNamespace).Create(t.Context(), obj, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating %s: %v", s.Name, err)
		}
	}
}

// nodesOf counts the workload nodes per MachineDeployment.
func (w *capiWorld) nodesOf(t *testing.T) map[string]int {
	t.Helper()
	list, err := w.workload.Client.CoreV1().Nodes().List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, n := range list.Items {
		got[n.Labels[capiMDLabel]]++
	}
	return got
}

// replicas reads a MachineDeployment's spec.replicas.
func (w *capiWorld) replicas(ctx context.Context, md string) (int64, error) {
	obj, err := w.dyn.Resource(clusterapitest.MachineDeployments).Namespace(capiNamespace).Get(ctx, md, metav1.GetOptions{})
	if err != nil {
		return 0, err
	}
	n, _, err := unstructured.NestedInt64(obj.Object, "spec", "replicas")
	return n, err
}

// capiGroupStatus returns a MachineDeployment's part of the status
// ConfigMap: from its name to the next group's name, or "".
func capiGroupStatus(status, md string) string {
	prefix := "name: MachineDeployment/" + capiNamespace + "/"
	i := strings.Index(status, prefix+md+"\n")
	if i < 0 {
		return ""
	}
	rest := status[i+1:]
	if j := strings.Index(rest, prefix); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// TestNodeAutoscalerClusterAPI runs `kscale node-autoscaler
// --cloud-provider=clusterapi` under the overlay's RBAC against a workload
// and a separate management cluster.
func TestNodeAutoscalerClusterAPI(t *testing.T) {
	w, workloadKubeconfig, managementKubeconfig := capiSetup(t)
	env := w.workload
	naRun(t, "--kubeconfig", workloadKubeconfig, "--cloud-provider=clusterapi", "--cloud-config", managementKubeconfig,
		"--node-group-auto-discovery=clusterapi:namespace="+capiNamespace+",clusterName=workload",
		"--address", naFreeAddress(t), "--scan-interval=1s", "--expander=priority",
		"--scale-down-unneeded-time=1h", "--scale-down-delay-after-add=0s", "--scale-down-delay-after-delete=0s",
		"--initial-node-group-backoff-duration=5m")

	t.Run("pending pods grow the right MachineDeployment from its live node", func(t *testing.T) {
		naDeploy(t, env, "small", 3, "small", "1500m")
		naExpectRunning(t, env, "small", 3)
		if got := w.nodesOf(t); got["md-small"] != 3 || got["md-big"] != 0 {
			t.Errorf("nodes per MachineDeployment %v, want md-small 3", got)
		}
	})
	t.Run("a MachineDeployment at zero with capacity annotations scales from zero", func(t *testing.T) {
		naDeploy(t, env, "big", 4, "big", "3")
		naExpectRunning(t, env, "big", 4)
		if got := w.nodesOf(t); got["md-big"] != 2 || got[""] != 0 {
			t.Errorf("nodes per MachineDeployment %v, want md-big 2", got)
		}
		if n, err := w.replicas(t.Context(), "md-other-cluster"); err != nil || n != 0 {
			t.Errorf("md-other-cluster replicas %d (%v): another cluster's group must not scale", n, err)
		}
	})
	t.Run("a group without a template says why in the status ConfigMap", func(t *testing.T) {
		naPoll(t, "md-none's reason in the status ConfigMap", func(ctx context.Context) (bool, error) {
			cm, err := env.Client.CoreV1().ConfigMaps("kube-system").Get(ctx, live.StatusConfigMapName, metav1.GetOptions{})
			if err != nil {
				return false, nil
			}
			s := cm.Data[live.StatusConfigMapKey]
			i := strings.Index(s, "name: MachineDeployment/"+capiNamespace+"/md-none")
			return i >= 0 && strings.Contains(s[i:], "cannot scale from zero"), nil
		})
	})
	t.Run("a group whose machines fail backs off and the next takes over", func(t *testing.T) {
		w.capi.Infra.Fail(capiNamespace+"/md-preferred", &machinesim.Failure{Reason: "InsufficientResources", Message: "no sim-4cpu capacity left"})
		naDeploy(t, env, "spill", 1, "spill", "3")
		naExpectRunning(t, env, "spill", 1)
		got := w.nodesOf(t)
		if got["md-fallback"] != 1 || got["md-preferred"] != 0 {
			t.Errorf("nodes per MachineDeployment %v, want md-fallback 1, md-preferred 0", got)
		}
		naPoll(t, "md-preferred back at zero replicas", func(ctx context.Context) (bool, error) {
			n, err := w.replicas(ctx, "md-preferred")
			return err == nil && n == 0, err
		})
		if !slices.ContainsFunc(w.capi.Infra.Deleted(), func(m string) bool { return strings.HasPrefix(m, capiNamespace+"/md-preferred-") }) {
			t.Errorf("no failed md-preferred machine was removed: %v", w.capi.Infra.Deleted())
		}
		naPoll(t, "md-preferred backed off for InsufficientResources in the status ConfigMap", func(ctx context.Context) (bool, error) {
			cm, err := env.Client.CoreV1().ConfigMaps("kube-system").Get(ctx, live.StatusConfigMapName, metav1.GetOptions{})
			if err != nil {
				return false, nil
			}
			g := capiGroupStatus(cm.Data[live.StatusConfigMapKey], "md-preferred")
			return strings.Contains(g, "status: Backoff") && strings.Contains(g, "errorCode: InsufficientResources"), nil
		})
	})
	t.Run("a group whose machines fail with a provider reason ending in Failed backs off", func(t *testing.T) {
		w.capi.Infra.Fail(capiNamespace+"/md-preferred-v1beta2", &machinesim.Failure{Reason: "InstanceProvisionFailed", Message: "quota exceeded"})
		naDeploy(t, env, "spill2", 1, "spill2", "3")
		naExpectRunning(t, env, "spill2", 1)
		if got := w.nodesOf(t); got["md-fallback-v1beta2"] != 1 || got["md-preferred-v1beta2"] != 0 {
			t.Errorf("nodes per MachineDeployment %v, want md-fallback-v1beta2 1, md-preferred-v1beta2 0", got)
		}
		naPoll(t, "md-preferred-v1beta2 backed off for InstanceProvisionFailed in the status ConfigMap", func(ctx context.Context) (bool, error) {
			cm, err := env.Client.CoreV1().ConfigMaps("kube-system").Get(ctx, live.StatusConfigMapName, metav1.GetOptions{})
			if err != nil {
				return false, nil
			}
			g := capiGroupStatus(cm.Data[live.StatusConfigMapKey], "md-preferred-v1beta2")
			return strings.Contains(g, "status: Backoff") && strings.Contains(g, "errorCode: InstanceProvisionFailed"), nil
		})
	})
	t.Run("an unparsable option annotation is a warning naming it", func(t *testing.T) {
		naPoll(t, "a NodeGroupOptionsInvalid event for md-none", func(ctx context.Context) (bool, error) {
			list, err := env.Client.CoreV1().Events("kube-system").List(ctx, metav1.ListOptions{})
			if err != nil {
				return false, nil
			}
			for _, e := range list.Items {
				if e.Reason == "NodeGroupOptionsInvalid" && e.Type == corev1.EventTypeWarning &&
					strings.Contains(e.Message, "md-none") && strings.Contains(e.Message, capiUnneededOption) {
					return true, nil
				}
			}
			return false, nil
		})
	})
	t.Run("kscale rides out a restart of the Cluster API manager", func(t *testing.T) {
		w.capi.Manager.Stop()
		if err := w.capi.Manager.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
	})
	// md-small's own 2s unneeded time (the global one is 1h) lets it
	// shrink within the test.
	t.Run("scale-down removes exactly the chosen machines", func(t *testing.T) {
		nodes, err := env.Client.CoreV1().Nodes().List(t.Context(), metav1.ListOptions{LabelSelector: capiMDLabel + "=md-small"})
		if err != nil {
			t.Fatal(err)
		}
		// Keep the newest md-small node; which machines go is up to the
		// delete-machine annotation (Cluster API's MachineSet deletes at
		// random among unannotated ones).
		items := nodes.Items
		slices.SortFunc(items, func(a, b corev1.Node) int { return a.CreationTimestamp.Compare(b.CreationTimestamp.Time) })
		keep := items[len(items)-1].Name
		var want []string
		for _, n := range items[:len(items)-1] {
			want = append(want, capiNamespace+"/"+n.Name)
		}
		patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:"true"}}}`, "cluster-autoscaler.kubernetes.io/scale-down-disabled")
		if _, err := env.Client.CoreV1().Nodes().Patch(t.Context(), keep, "application/merge-patch+json", []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		deletedBefore := len(w.capi.Infra.Deleted())
		naScale(t, env, "small", 0)
		naPoll(t, "md-small down to its kept node", func(ctx context.Context) (bool, error) {
			n, err := w.replicas(ctx, "md-small")
			return err == nil && n == 1 && w.nodesOf(t)["md-small"] == 1, err
		})
		gone := w.capi.Infra.Deleted()[deletedBefore:]
		slices.Sort(gone)
		slices.Sort(want)
		if !slices.Equal(gone, want) {
			t.Errorf("machines removed %v, want %v (kept %s)", gone, want, keep)
		}
		if _, err := env.Client.CoreV1().Nodes().Get(t.Context(), keep, metav1.GetOptions{}); err != nil {
			t.Errorf("kept node %s: %v", keep, err)
		}
	})
}
