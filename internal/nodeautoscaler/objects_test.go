package nodeautoscaler

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/inmemory"
	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/nodeautoscaler/actuation/memcluster"
	"github.com/kscale/kscale/internal/nodeautoscaler/options"
	"github.com/kscale/kscale/internal/nodeautoscaler/scaledown"
	"github.com/kscale/kscale/internal/scheduling"
)

// objectsCluster is a staticCluster that also offers namespaces, volumes,
// claims and a controller lookup.
type objectsCluster struct {
	staticCluster
	namespaces  []*corev1.Namespace
	pvs         []*corev1.PersistentVolume
	pvcs        []*corev1.PersistentVolumeClaim
	classes     []*storagev1.StorageClass
	csiNodes    []*storagev1.CSINode
	controllers scaledown.ControllerLookup
}

func (c *objectsCluster) View(ctx context.Context) (*View, error) {
	v, err := c.staticCluster.View(ctx)
	if err != nil {
		return nil, err
	}
	v.Namespaces, v.PersistentVolumes, v.PersistentVolumeClaims, v.StorageClasses, v.CSINodes = c.namespaces, c.pvs, c.pvcs, c.classes, c.csiNodes
	if c.controllers != nil {
		v.Controllers = c.controllers
	}
	return v, nil
}

// lookupFunc is a ControllerLookup.
type lookupFunc func(namespace string, ref *metav1.OwnerReference) bool

func (f lookupFunc) ControllerExists(namespace string, ref *metav1.OwnerReference) bool {
	return f(namespace, ref)
}

// DesiredReplicas knows no replica counts.
func (lookupFunc) DesiredReplicas(string, *metav1.OwnerReference) (int32, bool) { return 0, false }

// newObjectsLoop is a loop on one group "ng" (r5.xlarge, at most 5 nodes)
// reading cl; with sd set it scales down too.
func newObjectsLoop(t *testing.T, cl Cluster, sd ScaleDownCluster, now time.Time) (*Autoscaler, *inmemory.Cloud, *events) {
	t.Helper()
	clk := clocktesting.NewFakeClock(now)
	cloud := inmemory.New(clk)
	it, err := inmemory.LookupInstanceType("r5.xlarge")
	if err != nil {
		t.Fatal(err)
	}
	err = cloud.AddGroup(inmemory.GroupConfig{ID: "ng", MaxSize: 5, Capacity: inmemory.Unlimited, BootTime: time.Minute,
		Template: cloudprovider.Template{InstanceTypes: []cloudprovider.InstanceType{it}}})
	if err != nil {
		t.Fatal(err)
	}
	o := options.Default()
	o.ScaleDown.UnneededTime = 0
	rec := &events{}
	a, err := New(Config{Options: o, Provider: cloud, Cluster: cl, ScaleDown: sd, Recorder: rec, Clock: clk,
		Rand: rand.New(rand.NewPCG(1, 1)), Registerer: prometheus.NewRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	return a, cloud, rec
}

func claimPod(name, claim string, created time.Time) *corev1.Pod {
	p := pendingPod(name, created)
	p.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}}
	return p
}

// claim returns a claim bound to the volume (unbound when volume is ""),
// of the storage class when class is not "".
func claim(name, volume, class string) *corev1.PersistentVolumeClaim {
	c := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: corev1.PersistentVolumeClaimSpec{VolumeName: volume}}
	if volume != "" {
		c.Annotations = map[string]string{scheduling.AnnBindCompleted: "yes"}
	}
	if class != "" {
		c.Spec.StorageClassName = &class
	}
	return c
}

// lateBinding is a WaitForFirstConsumer class whose provisioner creates
// volumes on any node.
func lateBinding(name string) *storagev1.StorageClass {
	mode := storagev1.VolumeBindingWaitForFirstConsumer
	return &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: "csi.example.com", VolumeBindingMode: &mode}
}

func volume(name string, onlyOnHost string) *corev1.PersistentVolume {
	pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if onlyOnHost != "" {
		pv.Spec.NodeAffinity = &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: fixture.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{onlyOnHost}}},
		}}}}
	}
	return pv
}

// The loop's scale-up simulates volumes with the claims and volumes the
// cluster offers.
func TestRunOnceScaleUpSeesClaimsAndVolumes(t *testing.T) {
	now := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		objects bool
		pvcs    []*corev1.PersistentVolumeClaim
		pvs     []*corev1.PersistentVolume
		classes []*storagev1.StorageClass
		want    int
	}{
		{name: "cluster without objects: the claim is not found", want: 0},
		{name: "claim not found", objects: true, want: 0},
		{name: "unbound claim without class binds immediately: the scheduler waits", objects: true,
			pvcs: []*corev1.PersistentVolumeClaim{claim("data", "", "")}, want: 0},
		{name: "unbound late-binding claim is provisioned on the new node", objects: true,
			pvcs: []*corev1.PersistentVolumeClaim{claim("data", "", "wffc")}, classes: []*storagev1.StorageClass{lateBinding("wffc")}, want: 1},
		{name: "unbound claim of an unknown class", objects: true, pvcs: []*corev1.PersistentVolumeClaim{claim("data", "", "wffc")}, want: 0},
		{name: "bound claim, volume missing", objects: true, pvcs: []*corev1.PersistentVolumeClaim{claim("data", "pv-1", "")}, want: 0},
		{name: "bound claim, volume anywhere", objects: true, pvcs: []*corev1.PersistentVolumeClaim{claim("data", "pv-1", "")},
			pvs: []*corev1.PersistentVolume{volume("pv-1", "")}, want: 1},
		{name: "bound claim, volume only on another host", objects: true, pvcs: []*corev1.PersistentVolumeClaim{claim("data", "pv-1", "")},
			pvs: []*corev1.PersistentVolume{volume("pv-1", "elsewhere")}, want: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			static := staticCluster{pods: []*corev1.Pod{claimPod("p", "data", now)}}
			var cl Cluster = &static
			if tc.objects {
				cl = &objectsCluster{staticCluster: static, pvcs: tc.pvcs, pvs: tc.pvs, classes: tc.classes}
			}
			a, cloud, rec := newObjectsLoop(t, cl, nil, now)
			if err := a.RunOnce(t.Context(), now); err != nil {
				t.Fatal(err)
			}
			if _, target, _ := cloud.Group("ng"); target != tc.want {
				t.Fatalf("target %d, want %d (events %+v)", target, tc.want, *rec)
			}
		})
	}
}

// The loop's scale-down keeps a node whose pod lost its ReplicaSet.
func TestRunOnceScaleDownChecksControllers(t *testing.T) {
	now := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	rs := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "ReplicaSet"}
	tests := []struct {
		name        string
		controllers scaledown.ControllerLookup
		want        scaledown.Reason
	}{
		// n2 is empty and goes first, so n1's pod has nowhere to move.
		{name: "every controller exists", want: scaledown.ReasonNoPlaceToMove},
		{name: "ReplicaSet exists", controllers: lookupFunc(func(string, *metav1.OwnerReference) bool { return true }),
			want: scaledown.ReasonNoPlaceToMove},
		{name: "ReplicaSet gone", controllers: lookupFunc(func(string, *metav1.OwnerReference) bool { return false }),
			want: scaledown.ReasonControllerNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mem := memcluster.New(now)
			cl := &objectsCluster{controllers: tc.controllers}
			a, cloud, rec := newObjectsLoop(t, cl, mem, now)
			for _, id := range []string{"n1", "n2"} {
				if err := cloud.AddInstance("ng", id, true, 0); err != nil {
					t.Fatal(err)
				}
				n := fixture.Node(id, fixture.WithProviderID(inmemory.ProviderID("ng", id)))
				cl.nodes = append(cl.nodes, n)
				mem.AddNode(n)
			}
			cl.pods = []*corev1.Pod{fixture.Pod("web", fixture.OnNode("n1"), fixture.Running(),
				fixture.WithRequests("cpu", "100m"), fixture.WithOwner(rs, "web", "uid-web"))}
			if err := a.RunOnce(t.Context(), now); err != nil {
				t.Fatal(err)
			}
			var got scaledown.Reason
			for _, e := range *rec {
				if e.Type == EventScaleDownBlocked && len(e.Nodes) == 1 && e.Nodes[0] == "n1" {
					got = scaledown.Reason(e.Reason)
				}
			}
			if got != tc.want {
				t.Fatalf("n1 blocked by %q, want %q (events %+v)", got, tc.want, *rec)
			}
		})
	}
}
