package e2e

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/cloudprovider/clusterapi"
	"github.com/kscale/kscale/internal/cloudprovider/clusterapi/clusterapitest"
	"github.com/kscale/kscale/internal/testenv/capienv"
	"github.com/kscale/kscale/internal/testenv/machinesim"
)

// capiZones are the zones of pool "zoned": one MachineDeployment each,
// alike but for the zone.
var capiZones = []string{"zone-a", "zone-b"}

func capiZoneMD(zone string) string { return "md-" + zone }

// capiZonesSetup is capiSetup with pool "zoned" only: a MachineDeployment
// per zone at zero with capacity annotations, a failure domain and the
// zone among the scale-from-zero labels; its nodes carry the zone label.
func capiZonesSetup(t *testing.T) (w *capiWorld, workloadKubeconfig, managementKubeconfig string) {
	t.Helper()
	w = &capiWorld{machineWorld: startMachineWorld(t, capienv.Install, capiNamespace)}
	rbac := capiLiveRBAC
	applyManifests(t, vpaTestClient(t, w.workload), rbac.overlay, rbac.workload...)
	applyManifests(t, vpaTestClient(t, w.management), rbac.overlay, rbac.management...)
	shapes := map[string]machinesim.Shape{}
	for _, z := range capiZones {
		shapes[capiNamespace+"/"+capiZoneMD(z)] = machinesim.Shape{
			Labels: map[string]string{capiMDLabel: capiZoneMD(z), "pool": "zoned", corev1.LabelInstanceTypeStable: "sim-4cpu", corev1.LabelTopologyZone: z},
			Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("16Gi"),
				corev1.ResourcePods: resource.MustParse("110")}}
	}
	w.capi = capienv.Start(t, capienv.Config{Management: w.management, Workload: w.workload, Namespace: capiNamespace,
		Infra: capienv.InfraConfig{Timing: machinesim.Timing{BootTime: time.Second}, Shapes: shapes}})
	for _, z := range capiZones {
		a := clusterapitest.CapacityAnnotations("4", "16Gi")
		a[clusterapi.LabelsAnnotation] = "pool=zoned," + corev1.LabelTopologyZone + "=" + z
		s := clusterapitest.Scalable{Namespace: capiNamespace, Name: capiZoneMD(z), Max: 5, Annotations: a, FailureDomain: z}
		tmpl := clusterapitest.InfraTemplate(capiNamespace, s.Name)
		if _, err := w.dyn.Resource(clusterapitest.InfraTemplates).Namespace(capiNamespace).Create(t.Context(), tmpl, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating the SimMachineTemplate of %s: %v", s.Name, err)
		}
		if _, err := w.dyn.Resource(clusterapitest.MachineDeployments).Namespace(capiNamespace).Create(t.Context(), s.Object(), metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating %s: %v", s.Name, err)
		}
	}
	return w, serviceAccountKubeconfig(t, w.workload, rbac.account), serviceAccountKubeconfig(t, w.management, rbac.account)
}

// TestNodeAutoscalerClusterAPIBalancedZones runs `kscale node-autoscaler
// --balance-similar-node-groups` over two MachineDeployments in two zones
// against the real Cluster API controllers: a scale-up from zero and one
// from N each split evenly between the zones.
func TestNodeAutoscalerClusterAPIBalancedZones(t *testing.T) {
	w, workloadKubeconfig, managementKubeconfig := capiZonesSetup(t)
	env := w.workload
	naRun(t, "--kubeconfig", workloadKubeconfig, "--cloud-provider=clusterapi", "--cloud-config", managementKubeconfig,
		"--node-group-auto-discovery=clusterapi:namespace="+capiNamespace+",clusterName=workload",
		"--address", naFreeAddress(t), "--scan-interval=1s", "--balance-similar-node-groups", "--expander=least-waste",
		"--scale-down-unneeded-time=1h", "--scale-down-delay-after-add=0s")

	for _, step := range []struct {
		name    string
		pods    int32
		perZone int
		scale   bool
	}{
		{name: "four pods grow both zones from zero, two nodes each", pods: 4, perZone: 2},
		{name: "two more pods grow both zones from two, one node each", pods: 6, perZone: 3, scale: true},
	} {
		t.Run(step.name, func(t *testing.T) {
			if step.scale {
				naScale(t, env, "zoned", step.pods)
			} else {
				naDeploy(t, env, "zoned", step.pods, "zoned", "3")
			}
			naExpectRunning(t, env, "zoned", int(step.pods))
			got := w.nodesOf(t)
			for _, z := range capiZones {
				if got[capiZoneMD(z)] != step.perZone {
					t.Errorf("nodes per MachineDeployment %v, want %d in each zone", got, step.perZone)
				}
				if n, err := w.replicas(t.Context(), capiZoneMD(z)); err != nil || n != int64(step.perZone) {
					t.Errorf("%s replicas %d (%v), want %d", capiZoneMD(z), n, err, step.perZone)
				}
			}
		})
	}
}
