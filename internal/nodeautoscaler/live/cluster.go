package live

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/kscale/kscale/internal/nodeautoscaler"
	"github.com/kscale/kscale/internal/nodeautoscaler/scaledown"
)

// ErrNotSynced means the informer caches have not synced, or no view was
// taken yet; the loop must not decide on a partial cluster.
var ErrNotSynced = errors.New("cluster caches not synced")

// IsNotSynced reports whether err means the caches were not synced.
func IsNotSynced(err error) bool { return errors.Is(err, ErrNotSynced) }

// lister is what every generated lister offers.
type lister[T any] interface {
	List(selector labels.Selector) ([]T, error)
}

// Cluster is nodeautoscaler.Cluster over shared informers. The loop reads
// the View taken by the last Refresh, so every object of one loop comes
// from the same moment. The returned objects are the informers' cached
// objects and must not be modified.
type Cluster struct {
	nodes        lister[*corev1.Node]
	pods         lister[*corev1.Pod]
	daemonSets   lister[*appsv1.DaemonSet]
	pdbs         lister[*policyv1.PodDisruptionBudget]
	replicaSets  lister[*appsv1.ReplicaSet]
	statefulSets lister[*appsv1.StatefulSet]
	jobs         lister[*batchv1.Job]
	rcs          lister[*corev1.ReplicationController]
	namespaces   lister[*corev1.Namespace]
	pvs          lister[*corev1.PersistentVolume]
	pvcs         lister[*corev1.PersistentVolumeClaim]
	classes      lister[*storagev1.StorageClass]
	csiNodes     lister[*storagev1.CSINode]
	synced       []cache.InformerSynced

	mu   sync.Mutex
	view *View
}

var (
	_ nodeautoscaler.Cluster           = (*Cluster)(nil)
	_ nodeautoscaler.ObjectCluster     = (*Cluster)(nil)
	_ nodeautoscaler.ControllerCluster = (*Cluster)(nil)
)

// View is one consistent read of the cluster. It is also the loop's
// scaledown.ControllerLookup.
type View struct {
	// Nodes are every node.
	Nodes []*corev1.Node
	// Pods are every pod.
	Pods []*corev1.Pod
	// DaemonSets are every DaemonSet.
	DaemonSets []*appsv1.DaemonSet
	// PDBs are every PodDisruptionBudget.
	PDBs []*policyv1.PodDisruptionBudget
	// ReplicaSets, StatefulSets, Jobs and ReplicationControllers are the
	// pod controllers whose existence the drain rules check.
	ReplicaSets            []*appsv1.ReplicaSet
	StatefulSets           []*appsv1.StatefulSet
	Jobs                   []*batchv1.Job
	ReplicationControllers []*corev1.ReplicationController
	// Namespaces are every namespace (for namespaceSelector).
	Namespaces []*corev1.Namespace
	// PersistentVolumes and PersistentVolumeClaims are every volume and
	// claim (for the volume filters).
	PersistentVolumes      []*corev1.PersistentVolume
	PersistentVolumeClaims []*corev1.PersistentVolumeClaim
	// StorageClasses and CSINodes are every class and CSI node (for the
	// volume binding and attach limit filters).
	StorageClasses []*storagev1.StorageClass
	CSINodes       []*storagev1.CSINode

	controllersOnce sync.Once
	controllers     map[controllerKey]controllerInfo
}

// controllerInfo is what the drain rules read of one controller.
type controllerInfo struct {
	uid      types.UID
	replicas *int32
}

var _ scaledown.ControllerLookup = (*View)(nil)

// NewCluster registers the informers of every kind the loop reads on
// factory: nodes, pods, DaemonSets, PodDisruptionBudgets, ReplicaSets,
// StatefulSets, Jobs, ReplicationControllers, namespaces,
// PersistentVolumes, PersistentVolumeClaims, StorageClasses and CSINodes.
// Start the factory (Start)
// after every informer of the process was registered.
func NewCluster(factory informers.SharedInformerFactory) *Cluster {
	core, apps := factory.Core().V1(), factory.Apps().V1()
	c := &Cluster{
		nodes: core.Nodes().Lister(), pods: core.Pods().Lister(), daemonSets: apps.DaemonSets().Lister(),
		pdbs: factory.Policy().V1().PodDisruptionBudgets().Lister(), replicaSets: apps.ReplicaSets().Lister(),
		statefulSets: apps.StatefulSets().Lister(), jobs: factory.Batch().V1().Jobs().Lister(),
		rcs: core.ReplicationControllers().Lister(), namespaces: core.Namespaces().Lister(),
		pvs: core.PersistentVolumes().Lister(), pvcs: core.PersistentVolumeClaims().Lister(),
		classes: factory.Storage().V1().StorageClasses().Lister(), csiNodes: factory.Storage().V1().CSINodes().Lister(),
	}
	for _, i := range []cache.SharedIndexInformer{
		core.Nodes().Informer(), core.Pods().Informer(), apps.DaemonSets().Informer(),
		factory.Policy().V1().PodDisruptionBudgets().Informer(), apps.ReplicaSets().Informer(),
		apps.StatefulSets().Informer(), factory.Batch().V1().Jobs().Informer(),
		core.ReplicationControllers().Informer(), core.Namespaces().Informer(),
		core.PersistentVolumes().Informer(), core.PersistentVolumeClaims().Informer(),
		factory.Storage().V1().StorageClasses().Informer(), factory.Storage().V1().CSINodes().Informer(),
	} {
		c.synced = append(c.synced, i.HasSynced)
	}
	return c
}

// NewFactory returns the shared informer factory for a cluster-wide client.
func NewFactory(client kubernetes.Interface) informers.SharedInformerFactory {
	return informers.NewSharedInformerFactory(client, 0)
}

// HasSynced reports whether every cache has synced.
func (c *Cluster) HasSynced() bool {
	for _, s := range c.synced {
		if !s() {
			return false
		}
	}
	return true
}

// WaitForSync blocks until the caches synced or ctx ends.
func (c *Cluster) WaitForSync(ctx context.Context) error {
	if !cache.WaitForCacheSync(ctx.Done(), c.synced...) {
		return fmt.Errorf("waiting for caches: %w", ErrNotSynced)
	}
	return nil
}

// Refresh takes the view the next loop reads. It fails with ErrNotSynced
// before the caches synced.
func (c *Cluster) Refresh() (*View, error) {
	if !c.HasSynced() {
		return nil, ErrNotSynced
	}
	v := &View{}
	err := cmp.Or(
		listAll(c.nodes, &v.Nodes, "nodes"), listAll(c.pods, &v.Pods, "pods"),
		listAll(c.daemonSets, &v.DaemonSets, "daemonsets"), listAll(c.pdbs, &v.PDBs, "poddisruptionbudgets"),
		listAll(c.replicaSets, &v.ReplicaSets, "replicasets"), listAll(c.statefulSets, &v.StatefulSets, "statefulsets"),
		listAll(c.jobs, &v.Jobs, "jobs"), listAll(c.rcs, &v.ReplicationControllers, "replicationcontrollers"),
		listAll(c.namespaces, &v.Namespaces, "namespaces"), listAll(c.pvs, &v.PersistentVolumes, "persistentvolumes"),
		listAll(c.pvcs, &v.PersistentVolumeClaims, "persistentvolumeclaims"),
		listAll(c.classes, &v.StorageClasses, "storageclasses"), listAll(c.csiNodes, &v.CSINodes, "csinodes"),
	)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.view = v
	c.mu.Unlock()
	return v, nil
}

func listAll[T any](l lister[T], into *[]T, what string) error {
	var err error
	if *into, err = l.List(labels.Everything()); err != nil {
		return fmt.Errorf("listing %s: %w", what, err)
	}
	return nil
}

// current returns the view of the last Refresh, or ErrNotSynced.
func (c *Cluster) current() (*View, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.view == nil {
		return nil, ErrNotSynced
	}
	return c.view, nil
}

// fromView reads one part of the current view.
func fromView[T any](c *Cluster, part func(*View) []T) ([]T, error) {
	v, err := c.current()
	if err != nil {
		return nil, err
	}
	return part(v), nil
}

// ListNodes implements nodeautoscaler.Cluster from the current view.
func (c *Cluster) ListNodes(context.Context) ([]*corev1.Node, error) {
	return fromView(c, func(v *View) []*corev1.Node { return v.Nodes })
}

// ListPods implements nodeautoscaler.Cluster from the current view.
func (c *Cluster) ListPods(context.Context) ([]*corev1.Pod, error) {
	return fromView(c, func(v *View) []*corev1.Pod { return v.Pods })
}

// ListDaemonSets implements nodeautoscaler.Cluster from the current view.
func (c *Cluster) ListDaemonSets(context.Context) ([]*appsv1.DaemonSet, error) {
	return fromView(c, func(v *View) []*appsv1.DaemonSet { return v.DaemonSets })
}

// ListPDBs returns the PodDisruptionBudgets of the current view, for
// scale-down.
func (c *Cluster) ListPDBs(context.Context) ([]*policyv1.PodDisruptionBudget, error) {
	return fromView(c, func(v *View) []*policyv1.PodDisruptionBudget { return v.PDBs })
}

// ListNamespaces implements nodeautoscaler.ObjectCluster from the current
// view.
func (c *Cluster) ListNamespaces(context.Context) ([]*corev1.Namespace, error) {
	return fromView(c, func(v *View) []*corev1.Namespace { return v.Namespaces })
}

// ListPersistentVolumes implements nodeautoscaler.ObjectCluster from the
// current view.
func (c *Cluster) ListPersistentVolumes(context.Context) ([]*corev1.PersistentVolume, error) {
	return fromView(c, func(v *View) []*corev1.PersistentVolume { return v.PersistentVolumes })
}

// ListPersistentVolumeClaims implements nodeautoscaler.ObjectCluster from
// the current view.
func (c *Cluster) ListPersistentVolumeClaims(context.Context) ([]*corev1.PersistentVolumeClaim, error) {
	return fromView(c, func(v *View) []*corev1.PersistentVolumeClaim { return v.PersistentVolumeClaims })
}

// ListStorageClasses implements nodeautoscaler.ObjectCluster from the
// current view.
func (c *Cluster) ListStorageClasses(context.Context) ([]*storagev1.StorageClass, error) {
	return fromView(c, func(v *View) []*storagev1.StorageClass { return v.StorageClasses })
}

// ListCSINodes implements nodeautoscaler.ObjectCluster from the current
// view.
func (c *Cluster) ListCSINodes(context.Context) ([]*storagev1.CSINode, error) {
	return fromView(c, func(v *View) []*storagev1.CSINode { return v.CSINodes })
}

// PodControllers implements nodeautoscaler.ControllerCluster: the current
// view answers.
func (c *Cluster) PodControllers(context.Context) (scaledown.ControllerLookup, error) {
	v, err := c.current()
	if err != nil {
		return nil, err
	}
	return v, nil
}

// controllerKey names one controller object.
type controllerKey struct {
	group, kind, namespace, name string
}

// ControllerExists implements scaledown.ControllerLookup on the view's
// ReplicaSets, StatefulSets, Jobs and ReplicationControllers. Kinds the
// view does not hold are taken to exist. The index is built on the first
// call.
func (v *View) ControllerExists(namespace string, ref *metav1.OwnerReference) bool {
	if !scaledown.IsCheckedController(ref) {
		return true
	}
	_, ok := v.controller(namespace, ref)
	return ok
}

// DesiredReplicas implements scaledown.ControllerLookup: spec.replicas of
// the view's ReplicaSet or ReplicationController ref names.
func (v *View) DesiredReplicas(namespace string, ref *metav1.OwnerReference) (int32, bool) {
	c, ok := v.controller(namespace, ref)
	if !ok || c.replicas == nil {
		return 0, false
	}
	return *c.replicas, true
}

// controller finds the checked controller ref names, with its UID when
// ref carries one. The index is built on the first call.
func (v *View) controller(namespace string, ref *metav1.OwnerReference) (controllerInfo, bool) {
	v.controllersOnce.Do(v.indexControllers)
	c, ok := v.controllers[controllerKey{scaledown.APIGroup(ref.APIVersion), ref.Kind, namespace, ref.Name}]
	return c, ok && (ref.UID == "" || ref.UID == c.uid)
}

func (v *View) indexControllers() {
	m := make(map[controllerKey]controllerInfo, len(v.ReplicaSets)+len(v.StatefulSets)+len(v.Jobs)+len(v.ReplicationControllers))
	add := func(group, kind string, o *metav1.ObjectMeta, replicas *int32) {
		m[controllerKey{group, kind, o.Namespace, o.Name}] = controllerInfo{uid: o.UID, replicas: replicas}
	}
	for _, o := range v.ReplicaSets {
		add("apps", "ReplicaSet", &o.ObjectMeta, o.Spec.Replicas)
	}
	for _, o := range v.StatefulSets {
		add("apps", "StatefulSet", &o.ObjectMeta, nil)
	}
	for _, o := range v.Jobs {
		add("batch", "Job", &o.ObjectMeta, nil)
	}
	for _, o := range v.ReplicationControllers {
		add("", "ReplicationController", &o.ObjectMeta, o.Spec.Replicas)
	}
	v.controllers = m
}
