package scaledown

import (
	"maps"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kscale/kscale/internal/fixture"
)

// controllerSet is a ControllerLookup over a fixed set of objects.
type controllerSet map[controllerID]bool

type controllerID struct {
	group, kind, namespace, name string
	uid                          types.UID
}

func (s controllerSet) ControllerExists(namespace string, ref *metav1.OwnerReference) bool {
	return s[controllerID{APIGroup(ref.APIVersion), ref.Kind, namespace, ref.Name, ref.UID}]
}

// DesiredReplicas knows no replica counts.
func (s controllerSet) DesiredReplicas(string, *metav1.OwnerReference) (int32, bool) { return 0, false }

func TestPlanControllerNotFound(t *testing.T) {
	sts := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "StatefulSet"}
	rc := schema.GroupVersionKind{Version: "v1", Kind: "ReplicationController"}
	job := schema.GroupVersionKind{Group: "batch", Version: "v1", Kind: "Job"}
	ds := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "DaemonSet"}
	custom := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "ReplicaSet"}
	// Node a holds the pod under test, b is empty and c's pod takes most
	// of a node.
	base := func() *world { return new(world).node("a", "g").node("b", "g").node("c", "g").pod("x", "c", "1") }
	rsOf := func(name string) controllerID {
		return controllerID{"apps", "ReplicaSet", "default", "rs-" + name, types.UID("uid-rs-" + name)}
	}
	tests := []struct {
		name     string
		world    *world
		exists   []controllerID
		nilCheck bool
		blocked  Reason // on node a; "" means a is removable
	}{
		{name: "ReplicaSet exists", world: base().pod("p", "a", "100m"), exists: []controllerID{rsOf("p")}},
		{name: "ReplicaSet gone", world: base().pod("p", "a", "100m"), blocked: ReasonControllerNotFound},
		{name: "ReplicaSet recreated under the same name", world: base().pod("p", "a", "100m"),
			exists: []controllerID{{"apps", "ReplicaSet", "default", "rs-p", "other-uid"}}, blocked: ReasonControllerNotFound},
		{name: "ReplicaSet of the same name in another namespace", world: base().pod("p", "a", "100m"),
			exists: []controllerID{{"apps", "ReplicaSet", "other", "rs-p", "uid-rs-p"}}, blocked: ReasonControllerNotFound},
		{name: "no lookup takes every controller as existing", world: base().pod("p", "a", "100m"), nilCheck: true},
		{name: "StatefulSet gone", world: base().barePod("p", "a", "100m", fixture.WithOwner(sts, "db", "uid-db")), blocked: ReasonControllerNotFound},
		{name: "StatefulSet exists", world: base().barePod("p", "a", "100m", fixture.WithOwner(sts, "db", "uid-db")),
			exists: []controllerID{{"apps", "StatefulSet", "default", "db", "uid-db"}}},
		{name: "ReplicationController gone", world: base().barePod("p", "a", "100m", fixture.WithOwner(rc, "rc", "uid-rc")), blocked: ReasonControllerNotFound},
		{name: "custom controller is not replicated", world: base().barePod("p", "a", "100m", fixture.WithOwner(custom, "c", "uid-c")), blocked: ReasonBarePod},
		{name: "Job pod stays a Job pod when the Job is gone", world: base().barePod("p", "a", "100m", fixture.WithOwner(job, "j", "uid-j")), blocked: ReasonJobPod},
		{name: "DaemonSet pod of a deleted DaemonSet is ignored", world: base().barePod("p", "a", "100m", fixture.WithOwner(ds, "ds", "uid-ds"))},
		{name: "mirror pod is ignored", world: base().barePod("p", "a", "100m", annotate(MirrorPodAnnotation, "x"))},
		{name: "safe-to-evict pod moves without its controller", world: base().pod("p", "a", "100m", annotate(SafeToEvictAnnotation, "true"))},
		{name: "bare pod stays NotReplicated", world: base().barePod("p", "a", "100m"), blocked: ReasonBarePod},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.world.input(t0)
			if !tc.nilCheck {
				set := controllerSet{rsOf("x"): true}
				for _, id := range tc.exists {
					set[id] = true
				}
				in.Controllers = set
			}
			cfg := testConfig()
			plan, err := mustPlanner(t, cfg).Plan(in)
			if err != nil {
				t.Fatal(err)
			}
			samePlanOnLoopSnapshot(t, cfg, in, plan)
			// With a movable, its pod takes b's room and c's pod has
			// nowhere to go; with a kept, c's pod moves to b.
			want, wantUnneeded := map[string]Reason{"c": ReasonNoPlaceToMove}, []string{"b", "a"}
			if tc.blocked != "" {
				want, wantUnneeded = map[string]Reason{"a": tc.blocked}, []string{"b", "c"}
			}
			if got := reasons(plan.Blocked); !maps.Equal(got, want) {
				t.Errorf("blocked = %v, want %v", got, want)
			}
			if got := names(plan.Unneeded); !slices.Equal(got, wantUnneeded) {
				t.Errorf("unneeded = %v, want %v", got, wantUnneeded)
			}
		})
	}
}

func TestIsCheckedController(t *testing.T) {
	tests := []struct {
		apiVersion, kind string
		want             bool
	}{
		{"apps/v1", "ReplicaSet", true},
		{"apps/v1", "StatefulSet", true},
		{"batch/v1", "Job", true},
		{"v1", "ReplicationController", true},
		{"extensions/v1beta1", "ReplicaSet", false},
		{"apps/v1", "DaemonSet", false},
		{"apps/v1", "Deployment", false},
		{"example.com/v1", "Job", false},
		{"apps/v1", "replicaset", false},
	}
	for _, tc := range tests {
		ref := &metav1.OwnerReference{APIVersion: tc.apiVersion, Kind: tc.kind}
		if got := IsCheckedController(ref); got != tc.want {
			t.Errorf("IsCheckedController(%s %s) = %v, want %v", tc.apiVersion, tc.kind, got, tc.want)
		}
	}
}

func TestInputFromPassesObjects(t *testing.T) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns"}}
	pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv"}}
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pvc"}}
	sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "sc"}}
	csi := &storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: "n"}}
	lookup := controllerSet{}
	in := InputFrom(Observation{Namespaces: []*corev1.Namespace{ns}, PersistentVolumes: []*corev1.PersistentVolume{pv},
		PersistentVolumeClaims: []*corev1.PersistentVolumeClaim{pvc}, StorageClasses: []*storagev1.StorageClass{sc},
		CSINodes: []*storagev1.CSINode{csi}, Controllers: lookup})
	if len(in.Namespaces) != 1 || in.Namespaces[0] != ns || len(in.PersistentVolumes) != 1 || in.PersistentVolumes[0] != pv ||
		len(in.PersistentVolumeClaims) != 1 || in.PersistentVolumeClaims[0] != pvc || in.Controllers == nil ||
		len(in.StorageClasses) != 1 || in.StorageClasses[0] != sc || len(in.CSINodes) != 1 || in.CSINodes[0] != csi {
		t.Fatalf("InputFrom dropped objects: %+v", in)
	}
}
