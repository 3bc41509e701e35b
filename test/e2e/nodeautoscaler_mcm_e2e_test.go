package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kscale/kscale/internal/cloudprovider/mcm"
	"github.com/kscale/kscale/internal/cloudprovider/mcm/mcmtest"
	"github.com/kscale/kscale/internal/nodeautoscaler/live"
	"github.com/kscale/kscale/internal/testenv/machinesim"
	"github.com/kscale/kscale/internal/testenv/mcmenv"
)

// mcmNamespace is the shoot's control namespace in the control cluster;
// the overlay's manifests use it.
const mcmNamespace = "shoot--garden--example"

// mcmZones are the zones the worker pool "a" spreads over, one
// MachineDeployment each, named as Gardener names them.
var mcmZones = []string{"z1", "z2", "z3"}

func mcmMD(zone string) string { return mcmNamespace + "-a-" + zone }

// mcmZone is the cloud zone of one of mcmZones: z1 is sim-1a.
func mcmZone(z string) string { return "sim-1" + string(rune('a'+slices.Index(mcmZones, z))) }

// gardenerMCMArgs is Gardener's cluster-autoscaler command line after the
// binary (spec providers.md §3.9, GG computeCommand) with the Shoot API's
// defaults, the target kubeconfig and one --nodes per MachineDeployment.
func gardenerMCMArgs(kubeconfig string, nodes ...string) []string {
	args := []string{
		"--address=:8085", "--kubeconfig=" + kubeconfig, "--cloud-provider=mcm", "--stderrthreshold=info",
		"--skip-nodes-with-system-pods=false", "--skip-nodes-with-local-storage=false", "--expendable-pods-priority-cutoff=-10",
		"--balance-similar-node-groups=true", "--ignore-taint=node.gardener.cloud/critical-components-not-ready",
		"--expander=least-waste", "--max-graceful-termination-sec=600", "--max-node-provision-time=20m0s",
		"--initial-node-group-backoff-duration=5m0s", "--max-node-group-backoff-duration=30m0s",
		"--node-group-backoff-reset-timeout=3h0m0s", "--scale-down-utilization-threshold=0.500000",
		"--scale-down-unneeded-time=30m0s", "--scale-down-delay-after-add=1h0m0s", "--scale-down-delay-after-delete=0s",
		"--scale-down-delay-after-failure=3m0s", "--scan-interval=10s", "--ignore-daemonsets-utilization=false", "--v=2",
		"--max-scale-down-parallelism=10", "--max-drain-parallelism=1", "--new-pod-scale-up-delay=0s", "--max-nodes-total=0",
		"--emit-per-nodegroup-metrics=false", "--max-binpacking-time=5m0s",
	}
	for _, n := range nodes {
		args = append(args, "--nodes="+n)
	}
	return args
}

// mcmWorld is the shared machineWorld with the real MCM CRDs and MCM's
// real controllers in the management (Gardener: control) cluster, and
// the test cloud behind MCM's driver (mcmenv); the workload cluster is
// the target.
type mcmWorld struct {
	*machineWorld
	mcm *mcmenv.Env
}

// mcmSetup starts both clusters, applies the mcm overlay's RBAC (the
// control namespace's Role in the control cluster, target/ in the target
// cluster) and returns the two ServiceAccounts' kubeconfigs.
func mcmSetup(t *testing.T) (w *mcmWorld, targetKubeconfig, controlKubeconfig string) {
	t.Helper()
	const overlay = "../../deploy/node-autoscaler-mcm"
	w = &mcmWorld{machineWorld: startMachineWorld(t, mcmtest.Install, mcmNamespace)}
	ctx := t.Context()
	applyManifests(t, vpaTestClient(t, w.management), overlay, "serviceaccount.yaml", "rbac-control.yaml")
	applyManifests(t, vpaTestClient(t, w.workload), overlay, "target/rbac.yaml")
	if err := mcmtest.CreateMCMDeployment(ctx, w.dyn, mcmNamespace, 1); err != nil {
		t.Fatal(err)
	}
	shapes := map[string]machinesim.Shape{}
	for _, z := range mcmZones {
		// The kubelet registers with the pool's labels, as Gardener's
		// kubelet configuration (--node-labels) makes it; MCM's machine
		// controller syncs the node template onto the Node later, and a
		// Node without them would leave the pods pending for a while.
		zone := mcmZone(z)
		shapes[mcmNamespace+"/"+mcmMD(z)] = machinesim.Shape{
			Labels: map[string]string{corev1.LabelInstanceTypeStable: "sim.xlarge", corev1.LabelTopologyRegion: "sim-1",
				"pool": "a", mcm.PoolLabel: "a", corev1.LabelTopologyZone: zone},
			Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("16Gi"),
				corev1.ResourcePods: resource.MustParse("110")}}
	}
	w.mcm = mcmenv.Start(t, mcmenv.Config{Control: w.management, Target: w.workload, Namespace: mcmNamespace,
		Cloud: mcmenv.CloudConfig{Timing: machinesim.Timing{BootTime: time.Second}, Shapes: shapes}})
	w.createPool(t)
	return w, serviceAccountKubeconfig(t, w.workload, "kscale-node-autoscaler"), serviceAccountKubeconfigIn(t, w.management, mcmNamespace, "kscale-node-autoscaler")
}

// createPool creates worker pool "a" as Gardener's provider extensions
// do: per zone a MachineClass with a nodeTemplate and a MachineDeployment
// at zero whose node labels carry the pool and the zone (also the AWS
// CSI driver's zone key).
func (w *mcmWorld) createPool(t *testing.T) {
	t.Helper()
	for _, z := range mcmZones {
		zone := mcmZone(z)
		class := mcmtest.Class{Namespace: mcmNamespace, Name: mcmMD(z) + "-class", InstanceType: "sim.xlarge", Region: "sim-1", Zone: zone, Secret: mcmenv.SecretName,
			Capacity: map[string]string{"cpu": "4", "memory": "16Gi", "gpu": "0"}}
		md := mcmtest.Deployment{Namespace: mcmNamespace, Name: mcmMD(z), Class: class.Name, NodeLabels: map[string]string{
			"pool": "a", mcm.PoolLabel: "a", corev1.LabelTopologyZone: zone, "topology.ebs.csi.aws.com/zone": zone}}
		if _, err := w.dyn.Resource(mcm.MachineClasses).Namespace(mcmNamespace).Create(t.Context(), class.Object(), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := w.dyn.Resource(mcm.MachineDeployments).Namespace(mcmNamespace).Create(t.Context(), md.Object(), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// nodesOf counts the target's nodes per MachineDeployment (machine names
// start with their MachineDeployment's name).
func (w *mcmWorld) nodesOf(ctx context.Context) map[string][]corev1.Node {
	list, err := w.workload.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	out := map[string][]corev1.Node{}
	if err != nil {
		return out
	}
	for _, n := range list.Items {
		for _, z := range mcmZones {
			if strings.HasPrefix(n.Name, mcmMD(z)+"-") {
				out[z] = append(out[z], n)
			}
		}
	}
	return out
}

// expectRejectedGone waits until every Machine of the zone whose instance
// the cloud refused is gone from the control cluster: kscale removed it
// and MCM deleted it.
func (w *mcmWorld) expectRejectedGone(t *testing.T, zone string) {
	t.Helper()
	prefix := mcmNamespace + "/" + mcmMD(zone) + "-"
	var rejected []string
	for _, m := range w.mcm.Cloud.Rejected() {
		if strings.HasPrefix(m, prefix) && !slices.Contains(rejected, m) {
			rejected = append(rejected, m)
		}
	}
	if len(rejected) == 0 {
		t.Fatalf("the cloud refused no machine of %s", zone)
	}
	naPoll(t, "the refused machines of "+zone+" deleted", func(ctx context.Context) (bool, error) {
		for _, m := range rejected {
			_, err := w.dyn.Resource(mcm.Machines).Namespace(mcmNamespace).Get(ctx, strings.TrimPrefix(m, mcmNamespace+"/"), metav1.GetOptions{})
			if !apierrors.IsNotFound(err) {
				return false, nil
			}
		}
		return true, nil
	})
}

func (w *mcmWorld) replicas(ctx context.Context, zone string) (int64, error) {
	obj, err := w.dyn.Resource(mcm.MachineDeployments).Namespace(mcmNamespace).Get(ctx, mcmMD(zone), metav1.GetOptions{})
	if err != nil {
		return 0, err
	}
	n, _, err := unstructured.NestedInt64(obj.Object, "spec", "replicas")
	return n, err
}

// gardenerLine is Gardener's command line for this world with the
// test's faster timings appended (later values win).
func gardenerLine(t *testing.T, targetKubeconfig string) []string {
	t.Helper()
	var nodes []string
	for _, z := range mcmZones {
		nodes = append(nodes, "0:3:"+mcmNamespace+"."+mcmMD(z))
	}
	return append(gardenerMCMArgs(targetKubeconfig, nodes...), "--address", naFreeAddress(t), "--scan-interval=1s", "--scale-down-unneeded-time=2s",
		"--scale-down-delay-after-add=0s",
		naRecheckSoon)
}

// TestNodeAutoscalerMCM runs `kscale node-autoscaler` with Gardener's
// cluster-autoscaler command line and environment under the overlay's
// RBAC against a target and a separate control cluster.
func TestNodeAutoscalerMCM(t *testing.T) {
	w, targetKubeconfig, controlKubeconfig := mcmSetup(t)
	env := w.workload
	t.Setenv(mcm.EnvControlNamespace, mcmNamespace)
	t.Setenv(mcm.EnvTargetKubeconfig, targetKubeconfig)
	// Gardener reaches the control cluster in-cluster; a test has no
	// in-cluster configuration, so the provider falls back to this file.
	t.Setenv(mcm.EnvControlKubeconfig, controlKubeconfig)
	naRun(t, gardenerLine(t, targetKubeconfig)...)

	t.Run("a pool spread over three zones grows from zero, balanced", func(t *testing.T) {
		w.dumpOnFailure(t, "web")
		naDeploy(t, env, "web", 3, "a", "3")
		naExpectRunning(t, env, "web", 3)
		for _, z := range mcmZones {
			if n := len(w.nodesOf(t.Context())[z]); n != 1 {
				t.Errorf("zone %s has %d nodes, want 1 (balanced over the zones' MachineDeployments)", z, n)
			}
		}
	})
	t.Run("a zone out of capacity backs off and the other zones take the pods", func(t *testing.T) {
		w.dumpOnFailure(t, "web")
		w.mcm.Cloud.Fail(mcmNamespace+"/"+mcmMD("z1"), &machinesim.Failure{Reason: mcm.CodeResourceExhausted, Message: "InsufficientInstanceCapacity in sim-1a"})
		naScale(t, env, "web", 6)
		naExpectRunning(t, env, "web", 6)
		got := w.nodesOf(t.Context())
		if len(got["z1"]) != 1 || len(got["z2"])+len(got["z3"]) != 5 {
			t.Errorf("nodes per zone z1 %d z2 %d z3 %d, want z1 1 and the other 5 in z2 and z3", len(got["z1"]), len(got["z2"]), len(got["z3"]))
		}
		naPoll(t, "z1 back at one replica", func(ctx context.Context) (bool, error) {
			n, err := w.replicas(ctx, "z1")
			return err == nil && n == 1, err
		})
		w.expectRejectedGone(t, "z1")
		naPoll(t, "z1 backed off for ResourceExhausted in the status ConfigMap", func(ctx context.Context) (bool, error) {
			cm, err := env.Client.CoreV1().ConfigMaps("kube-system").Get(ctx, live.StatusConfigMapName, metav1.GetOptions{})
			if err != nil {
				return false, nil
			}
			s := cm.Data[live.StatusConfigMapKey]
			i := strings.Index(s, "name: "+mcmMD("z1"))
			j := strings.Index(s, "name: "+mcmMD("z2"))
			return i >= 0 && j > i && strings.Contains(s[i:j], "status: Backoff") && strings.Contains(s[i:j], "errorCode: ResourceExhausted"), nil
		})
		w.mcm.Cloud.Fail(mcmNamespace+"/"+mcmMD("z1"), nil)
	})
	t.Run("kscale rides out a restart of MCM's controllers and grows a zone from N", func(t *testing.T) {
		w.dumpOnFailure(t, "web")
		w.mcm.Controllers.Stop()
		if err := w.mcm.Controllers.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		naScale(t, env, "web", 7)
		naExpectRunning(t, env, "web", 7)
		for _, z := range []string{"z2", "z3"} {
			if n, err := w.replicas(t.Context(), z); err != nil || n != 3 {
				t.Errorf("%s at %d replicas (%v), want its maximum 3 (z1 backs off)", z, n, err)
			}
		}
		// MCM deletes a removed Machine's Node only after draining it and
		// releasing the instance: wait until no such Node lingers.
		naPoll(t, "one Node per replica in every zone", func(ctx context.Context) (bool, error) {
			nodes := w.nodesOf(ctx)
			for _, z := range mcmZones {
				n, err := w.replicas(ctx, z)
				if err != nil || int64(len(nodes[z])) != n {
					return false, err
				}
			}
			return true, nil
		})
	})
	t.Run("a scale-down removes exactly the chosen machines", func(t *testing.T) {
		w.dumpOnFailure(t, "web")
		got := w.nodesOf(t.Context())
		zone := "z2"
		if len(got["z3"]) > len(got["z2"]) {
			zone = "z3"
		}
		items := got[zone]
		if len(items) < 2 {
			t.Fatalf("zone %s has %d nodes; the test needs two", zone, len(items))
		}
		// Keep the oldest node: MCM's own order (same priority and phase:
		// older first) would remove it first.
		slices.SortFunc(items, func(a, b corev1.Node) int { return a.CreationTimestamp.Compare(b.CreationTimestamp.Time) })
		keep := items[0].Name
		if !items[0].CreationTimestamp.Before(&items[1].CreationTimestamp) {
			t.Fatalf("nodes %s and %s were created in the same second; MCM's order could not tell them apart", keep, items[1].Name)
		}
		var want []string
		for _, n := range items[1:] {
			want = append(want, mcmNamespace+"/"+n.Name)
		}
		patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:"true"}}}`, mcm.ScaleDownDisabledAnnotation)
		if _, err := env.Client.CoreV1().Nodes().Patch(t.Context(), keep, "application/merge-patch+json", []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		deletedBefore := len(w.mcm.Cloud.Deleted())
		naScale(t, env, "web", 0)
		naPoll(t, zone+" down to its kept node", func(ctx context.Context) (bool, error) {
			n, err := w.replicas(ctx, zone)
			return err == nil && n == 1 && len(w.nodesOf(ctx)[zone]) == 1, err
		})
		// Only the machines that existed count: MCM v0.62's MachineDeployment
		// controller copies the replica-change time onto the MachineSet in
		// one update and lowers its replicas in the next; a MachineSet sync in
		// between deletes the marked machine as stale and, still at the old
		// count, launches a replacement that it removes once lowered (seen in
		// MCM's log: "Too few replicas ... creating 1" between the two).
		// That machine is MCM's, never a choice of kscale's.
		existed := map[string]bool{mcmNamespace + "/" + keep: true}
		for _, m := range want {
			existed[m] = true
		}
		var gone []string
		for _, m := range w.mcm.Cloud.Deleted()[deletedBefore:] {
			if existed[m] {
				gone = append(gone, m)
			}
		}
		slices.Sort(gone)
		slices.Sort(want)
		if !slices.Equal(gone, want) {
			t.Errorf("machines removed in %s %v, want %v (kept %s)", zone, gone, want, keep)
		}
		if _, err := env.Client.CoreV1().Nodes().Get(t.Context(), keep, metav1.GetOptions{}); err != nil {
			t.Errorf("kept node %s: %v", keep, err)
		}
	})
}
