package live_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/manifesttest"
	"github.com/kscale/kscale/internal/nodeautoscaler"
	"github.com/kscale/kscale/internal/nodeautoscaler/live"
)

// newCluster is live.NewCluster for tests.
func newCluster(tb testing.TB, factory informers.SharedInformerFactory) *live.Cluster {
	tb.Helper()
	c, err := live.NewCluster(factory)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// startCluster starts a live Cluster on the shared control plane and
// waits for its caches.
func startCluster(t *testing.T) (*live.Cluster, informers.SharedInformerFactory) {
	t.Helper()
	factory := live.NewFactory(env.Client)
	c, err := live.NewCluster(factory)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(func() { cancel(); factory.Shutdown() })
	factory.Start(ctx.Done())
	if err := c.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	return c, factory
}

func createNamespace(t *testing.T, name string) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := env.Client.CoreV1().Namespaces().Create(t.Context(), ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func TestClusterViewIsTakenByView(t *testing.T) {
	ctx := t.Context()
	factory := live.NewFactory(env.Client)
	c, err := live.NewCluster(factory)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Current(); !live.IsNotSynced(err) {
		t.Fatalf("Current before any view: got %v, want ErrNotSynced", err)
	}
	if _, err := c.View(ctx); !live.IsNotSynced(err) {
		t.Fatalf("View before the caches synced: got %v, want ErrNotSynced", err)
	}
	c, _ = startCluster(t)
	createNamespace(t, "view")
	if _, err := env.CreateNode(ctx, fixture.Node("view-node-1")); err != nil {
		t.Fatal(err)
	}
	pod := fixture.Pod("p1")
	pod.Namespace = "view"
	if _, err := env.Client.CoreV1().Pods("view").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pdb := fixture.PDB("p1", "p1")
	pdb.Namespace = "view"
	if _, err := env.Client.PolicyV1().PodDisruptionBudgets("view").Create(ctx, pdb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	view := waitForView(t, c, func(v *nodeautoscaler.View) bool {
		return hasNode(v, "view-node-1") && hasPod(v, "view", "p1") && len(inNamespace(v.PDBs, "view")) == 1
	})
	// A node created after the view stays out of the loop's reads until
	// the next View.
	if _, err := env.CreateNode(ctx, fixture.Node("view-node-2")); err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return c.HasSynced(), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	cur, err := c.Current()
	if err != nil || cur != view || len(cur.Nodes) != len(view.Nodes) {
		t.Fatalf("Current = %p (%v), want the last view %p: reads must come from the view", cur, err, view)
	}
	next := waitForView(t, c, func(v *nodeautoscaler.View) bool { return hasNode(v, "view-node-2") })
	if !slices.IsSortedFunc(next.Nodes, func(a, b *corev1.Node) int { return strings.Compare(a.Name, b.Name) }) {
		t.Error("the view's nodes are not sorted by name")
	}
}

// The view's pod index follows the informer's events: a created pod is
// in it, an updated one is replaced, a deleted one is gone; the cached
// objects carry no managedFields.
func TestClusterViewIndexFollowsPodEvents(t *testing.T) {
	ctx := t.Context()
	c, _ := startCluster(t)
	createNamespace(t, "events")
	pods := env.Client.CoreV1().Pods("events")
	pod := fixture.Pod("p1", fixture.UnschedulablePod())
	pod.Namespace = "events"
	created, err := pods.Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitForView(t, c, func(v *nodeautoscaler.View) bool { return hasPod(v, "events", "p1") })
	created.Status.Conditions = pod.Status.Conditions
	if _, err := pods.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	v := waitForView(t, c, func(v *nodeautoscaler.View) bool {
		return slices.ContainsFunc(v.Pods.Pending(nodeautoscaler.IsUnschedulable), func(p *corev1.Pod) bool { return p.Name == "p1" })
	})
	p, _ := v.Pods.Pod("events", "p1")
	if len(p.ManagedFields) != 0 {
		t.Errorf("the cached pod keeps %d managedFields entries", len(p.ManagedFields))
	}
	if err := pods.Delete(ctx, "p1", metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		t.Fatal(err)
	}
	waitForView(t, c, func(v *nodeautoscaler.View) bool { return !hasPod(v, "events", "p1") })
}

func waitForView(t *testing.T, c *live.Cluster, ok func(*nodeautoscaler.View) bool) *nodeautoscaler.View {
	t.Helper()
	var view *nodeautoscaler.View
	err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		v, err := c.View(ctx)
		if err != nil {
			return false, err
		}
		view = v
		return ok(v), nil
	})
	if err != nil {
		t.Fatalf("waiting for the view: %v", err)
	}
	return view
}

func hasNode(v *nodeautoscaler.View, name string) bool {
	for _, n := range v.Nodes {
		if n.Name == name {
			return true
		}
	}
	return false
}

func hasPod(v *nodeautoscaler.View, ns, name string) bool {
	_, ok := v.Pods.Pod(ns, name)
	return ok
}

// workloadObjects creates, in namespace ns, one object of every kind the
// view holds beyond nodes, pods, DaemonSets and PDBs, and returns the
// created ReplicaSet.
func workloadObjects(t *testing.T, ns string) *appsv1.ReplicaSet {
	t.Helper()
	ctx, c := t.Context(), env.Client
	rs := fixture.ReplicaSet("web", 1)
	rs.Namespace = ns
	rs, err := c.AppsV1().ReplicaSets(ns).Create(ctx, rs, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tmpl := rs.Spec.Template
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: ns},
		Spec: appsv1.StatefulSetSpec{Selector: rs.Spec.Selector, Template: tmpl}}
	job := fixture.Job("batch", 1, 1)
	job.Namespace = ns
	one := int32(1)
	rc := &corev1.ReplicationController{ObjectMeta: metav1.ObjectMeta{Name: "legacy", Namespace: ns},
		Spec: corev1.ReplicationControllerSpec{Replicas: &one, Selector: tmpl.Labels, Template: &tmpl}}
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: ns},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}}
	pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: ns + "-pv"},
		Spec: corev1.PersistentVolumeSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Capacity:               corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
			PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/data"}}}}
	for what, create := range map[string]func() error{
		"statefulset": func() error {
			_, err := c.AppsV1().StatefulSets(ns).Create(ctx, sts, metav1.CreateOptions{})
			return err
		},
		"job": func() error { _, err := c.BatchV1().Jobs(ns).Create(ctx, job, metav1.CreateOptions{}); return err },
		"rc": func() error {
			_, err := c.CoreV1().ReplicationControllers(ns).Create(ctx, rc, metav1.CreateOptions{})
			return err
		},
		"pvc": func() error {
			_, err := c.CoreV1().PersistentVolumeClaims(ns).Create(ctx, pvc, metav1.CreateOptions{})
			return err
		},
		"pv": func() error {
			_, err := c.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{})
			return err
		},
	} {
		if err := create(); err != nil {
			t.Fatalf("creating %s: %v", what, err)
		}
	}
	return rs
}

func TestClusterViewHoldsWorkloadsAndVolumes(t *testing.T) {
	ctx := t.Context()
	c, _ := startCluster(t)
	createNamespace(t, "objects")
	rs := workloadObjects(t, "objects")
	ref := func(apiVersion, kind, name string, uid types.UID) *metav1.OwnerReference {
		return &metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: uid}
	}
	view := waitForView(t, c, func(v *nodeautoscaler.View) bool {
		exists := func(apiVersion, kind, name string) bool {
			return v.Controllers.ControllerExists("objects", ref(apiVersion, kind, name, ""))
		}
		return exists("apps/v1", "ReplicaSet", "web") && exists("apps/v1", "StatefulSet", "db") && exists("batch/v1", "Job", "batch") &&
			exists("v1", "ReplicationController", "legacy") &&
			len(inNamespace(v.PersistentVolumeClaims, "objects")) == 1 && len(named(v.PersistentVolumes, "objects-pv")) == 1 &&
			len(named(v.Namespaces, "objects")) == 1
	})
	lookup := view.Controllers
	sts, err := env.Client.AppsV1().StatefulSets("objects").Get(ctx, "db", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	job, err := env.Client.BatchV1().Jobs("objects").Get(ctx, "batch", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rc, err := env.Client.CoreV1().ReplicationControllers("objects").Get(ctx, "legacy", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		ref  *metav1.OwnerReference
		want bool
	}{
		{"ReplicaSet", ref("apps/v1", "ReplicaSet", "web", rs.UID), true},
		{"ReplicaSet without UID", ref("apps/v1", "ReplicaSet", "web", ""), true},
		{"ReplicaSet with another UID", ref("apps/v1", "ReplicaSet", "web", "other"), false},
		{"missing ReplicaSet", ref("apps/v1", "ReplicaSet", "gone", ""), false},
		{"StatefulSet", ref("apps/v1", "StatefulSet", "db", sts.UID), true},
		{"Job", ref("batch/v1", "Job", "batch", job.UID), true},
		{"ReplicationController", ref("v1", "ReplicationController", "legacy", rc.UID), true},
		{"missing Job", ref("batch/v1", "Job", "web", ""), false},
		{"kind the view does not hold", ref("example.com/v1", "Thing", "x", ""), true},
	}
	for _, tc := range tests {
		if got := lookup.ControllerExists("objects", tc.ref); got != tc.want {
			t.Errorf("%s: ControllerExists = %v, want %v", tc.name, got, tc.want)
		}
	}
	if lookup.ControllerExists("default", ref("apps/v1", "ReplicaSet", "web", rs.UID)) {
		t.Error("ControllerExists found the ReplicaSet in another namespace")
	}
	// --min-replica-count reads spec.replicas of ReplicaSets and
	// ReplicationControllers.
	for _, tc := range []struct {
		name string
		ref  *metav1.OwnerReference
		want int32
		ok   bool
	}{
		{"ReplicaSet", ref("apps/v1", "ReplicaSet", "web", rs.UID), 1, true},
		{"ReplicationController", ref("v1", "ReplicationController", "legacy", ""), 1, true},
		{"StatefulSet", ref("apps/v1", "StatefulSet", "db", ""), 0, false},
		{"missing ReplicaSet", ref("apps/v1", "ReplicaSet", "gone", ""), 0, false},
	} {
		if got, ok := lookup.DesiredReplicas("objects", tc.ref); got != tc.want || ok != tc.ok {
			t.Errorf("%s: DesiredReplicas = %d, %v; want %d, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
	// A deleted ReplicaSet is gone from the next view.
	if err := env.Client.AppsV1().ReplicaSets("objects").Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	next := waitForView(t, c, func(v *nodeautoscaler.View) bool {
		return !v.Controllers.ControllerExists("objects", ref("apps/v1", "ReplicaSet", "web", ""))
	})
	if next.Controllers.ControllerExists("objects", ref("apps/v1", "ReplicaSet", "web", rs.UID)) {
		t.Error("the next view still finds the deleted ReplicaSet")
	}
	if !view.Controllers.ControllerExists("objects", ref("apps/v1", "ReplicaSet", "web", rs.UID)) {
		t.Error("the earlier view changed: a view must stay as it was taken")
	}
}

// inNamespace returns the objects of the namespace.
func inNamespace[T metav1.Object](objs []T, ns string) []metav1.Object {
	var out []metav1.Object
	for _, o := range objs {
		if o.GetNamespace() == ns {
			out = append(out, o)
		}
	}
	return out
}

// named returns the objects of the name.
func named[T metav1.Object](objs []T, name string) []metav1.Object {
	var out []metav1.Object
	for _, o := range objs {
		if o.GetName() == name {
			out = append(out, o)
		}
	}
	return out
}

// cachedKinds are the resources the Cluster's informers list and watch.
var cachedKinds = []schema.GroupVersionResource{
	{Version: "v1", Resource: "nodes"}, {Version: "v1", Resource: "pods"},
	{Group: "apps", Version: "v1", Resource: "daemonsets"}, {Group: "policy", Version: "v1", Resource: "poddisruptionbudgets"},
	{Group: "apps", Version: "v1", Resource: "replicasets"}, {Group: "apps", Version: "v1", Resource: "statefulsets"},
	{Group: "batch", Version: "v1", Resource: "jobs"}, {Version: "v1", Resource: "replicationcontrollers"},
	{Version: "v1", Resource: "namespaces"}, {Version: "v1", Resource: "persistentvolumes"},
	{Version: "v1", Resource: "persistentvolumeclaims"},
	{Group: "storage.k8s.io", Version: "v1", Resource: "storageclasses"}, {Group: "storage.k8s.io", Version: "v1", Resource: "csinodes"},
}

// grant lets user list and watch the resources, cluster-wide.
func grant(t *testing.T, name, user string, resources ...schema.GroupVersionResource) {
	t.Helper()
	ctx, rbac := t.Context(), env.Client.RbacV1()
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}}
	for _, r := range resources {
		role.Rules = append(role.Rules, rbacv1.PolicyRule{APIGroups: []string{r.Group}, Resources: []string{r.Resource}, Verbs: []string{"list", "watch"}})
	}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}}}
	if _, err := rbac.ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := rbac.ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// clientAs returns a client that impersonates the user in the groups.
func clientAs(t *testing.T, user string, groups ...string) kubernetes.Interface {
	t.Helper()
	cfg := rest.CopyConfig(env.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: append(groups, "system:authenticated")}
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The loop never runs on a view missing a kind: until every informer,
// the new kinds included, has listed, HasSynced is false and View fails.
func TestClusterHasSyncedWaitsForEveryKind(t *testing.T) {
	for i, missing := range cachedKinds {
		t.Run(missing.Resource, func(t *testing.T) {
			t.Parallel()
			user := "reader-without-" + missing.Resource
			grant(t, user, user, slices.Delete(slices.Clone(cachedKinds), i, i+1)...)
			factory := live.NewFactory(clientAs(t, user))
			c, err := live.NewCluster(factory)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			t.Cleanup(func() { cancel(); factory.Shutdown() })
			factory.Start(ctx.Done())
			var others []cache.InformerSynced
			for _, r := range cachedKinds {
				if r != missing {
					inf, err := factory.ForResource(r)
					if err != nil {
						t.Fatal(err)
					}
					others = append(others, inf.Informer().HasSynced)
				}
			}
			waitCtx, stop := context.WithTimeout(ctx, 30*time.Second)
			defer stop()
			if !cache.WaitForCacheSync(waitCtx.Done(), others...) {
				t.Fatal("the informers the user may read did not sync")
			}
			if c.HasSynced() {
				t.Fatalf("HasSynced is true while %s cannot be listed", missing.Resource)
			}
			if _, err := c.View(t.Context()); !live.IsNotSynced(err) {
				t.Fatalf("View without %s: got %v, want ErrNotSynced", missing.Resource, err)
			}
			grant(t, user+"-granted", user, missing)
			if err := c.WaitForSync(waitCtx); err != nil {
				t.Fatalf("after granting %s: %v", missing.Resource, err)
			}
			if _, err := c.View(t.Context()); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// The RBAC of deploy/node-autoscaler lets the Cluster's informers sync.
func TestClusterSyncsUnderDeployRBAC(t *testing.T) {
	var objs []*unstructured.Unstructured
	for _, o := range manifesttest.Load(t, "../../../deploy/node-autoscaler") {
		switch o.GetKind() {
		case "ServiceAccount", "ClusterRole", "ClusterRoleBinding":
			objs = append(objs, o)
		}
	}
	manifesttest.Create(t, env, objs)
	client := clientAs(t, "system:serviceaccount:kube-system:kscale-node-autoscaler", "system:serviceaccounts", "system:serviceaccounts:kube-system")
	factory := live.NewFactory(client)
	c := newCluster(t, factory)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(func() { cancel(); factory.Shutdown() })
	factory.Start(ctx.Done())
	if err := c.WaitForSync(ctx); err != nil {
		t.Fatalf("the deploy ServiceAccount cannot sync every cache: %v", err)
	}
}
