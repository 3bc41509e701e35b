package live

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/kscale/kscale/internal/nodeautoscaler"
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

// Cluster is nodeautoscaler.Cluster over shared informers. The pod
// informer's events are queued as they arrive and applied to one
// nodeautoscaler.PodIndex when the loop takes its view, so a loop's pod
// work follows what changed, as in the offline world; the other kinds are
// listed from their caches. The view's objects are the informers' cached
// objects and must not be modified.
type Cluster struct {
	nodes        lister[*corev1.Node]
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

	// changes are the pod events since the last view; only the caller of
	// View (the loop) touches index.
	changes podChanges
	index   *nodeautoscaler.PodIndex

	mu   sync.Mutex
	view *nodeautoscaler.View
}

var _ nodeautoscaler.Cluster = (*Cluster)(nil)

// NewCluster registers the informers of every kind the loop reads on
// factory: nodes, pods, DaemonSets, PodDisruptionBudgets, ReplicaSets,
// StatefulSets, Jobs, ReplicationControllers, namespaces,
// PersistentVolumes, PersistentVolumeClaims, StorageClasses and CSINodes,
// and the pod event handler that keeps the pod index. Start the factory
// (Start) after every informer of the process was registered.
func NewCluster(factory informers.SharedInformerFactory) (*Cluster, error) {
	core, apps := factory.Core().V1(), factory.Apps().V1()
	c := &Cluster{
		nodes: core.Nodes().Lister(), daemonSets: apps.DaemonSets().Lister(),
		pdbs: factory.Policy().V1().PodDisruptionBudgets().Lister(), replicaSets: apps.ReplicaSets().Lister(),
		statefulSets: apps.StatefulSets().Lister(), jobs: factory.Batch().V1().Jobs().Lister(),
		rcs: core.ReplicationControllers().Lister(), namespaces: core.Namespaces().Lister(),
		pvs: core.PersistentVolumes().Lister(), pvcs: core.PersistentVolumeClaims().Lister(),
		classes: factory.Storage().V1().StorageClasses().Lister(), csiNodes: factory.Storage().V1().CSINodes().Lister(),
		changes: newPodChanges(), index: nodeautoscaler.NewPodIndex(),
	}
	reg, err := core.Pods().Informer().AddEventHandler(c.changes.handler())
	if err != nil {
		return nil, fmt.Errorf("watching pods: %w", err)
	}
	c.synced = append(c.synced, reg.HasSynced)
	for _, i := range []cache.SharedIndexInformer{
		core.Nodes().Informer(), apps.DaemonSets().Informer(),
		factory.Policy().V1().PodDisruptionBudgets().Informer(), apps.ReplicaSets().Informer(),
		apps.StatefulSets().Informer(), factory.Batch().V1().Jobs().Informer(),
		core.ReplicationControllers().Informer(), core.Namespaces().Informer(),
		core.PersistentVolumes().Informer(), core.PersistentVolumeClaims().Informer(),
		factory.Storage().V1().StorageClasses().Informer(), factory.Storage().V1().CSINodes().Informer(),
	} {
		c.synced = append(c.synced, i.HasSynced)
	}
	return c, nil
}

// NewFactory returns the shared informer factory for a cluster-wide
// client. Its caches keep only what the node autoscaler reads (see
// StripUnread), and cached pods share equal labels, owner references,
// tolerations and container resources (see sharer).
func NewFactory(client kubernetes.Interface) informers.SharedInformerFactory {
	return informers.NewSharedInformerFactoryWithOptions(client, 0,
		informers.WithTransform(newSharer(defaultShareLimit).transform))
}

// PodEventHandler returns the handler the Cluster registered on the pod
// informer, for benchmarks that fill the informer's store themselves and
// deliver its events as the informer would.
func (c *Cluster) PodEventHandler() cache.ResourceEventHandler { return c.changes.handler() }

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

// View implements nodeautoscaler.Cluster: it applies the pod events queued
// since the last view to the index and lists the other kinds. It fails
// with ErrNotSynced before the caches synced. Call it from one goroutine
// (the loop's): the index it returns is changed by the next call.
func (c *Cluster) View(context.Context) (*nodeautoscaler.View, error) {
	if !c.HasSynced() {
		return nil, ErrNotSynced
	}
	c.changes.applyTo(c.index)
	v := &nodeautoscaler.View{Pods: c.index}
	var rs []*appsv1.ReplicaSet
	var ss []*appsv1.StatefulSet
	var jobs []*batchv1.Job
	var rcs []*corev1.ReplicationController
	err := cmp.Or(
		listAll(c.nodes, &v.Nodes, "nodes"), listAll(c.daemonSets, &v.DaemonSets, "daemonsets"),
		listAll(c.pdbs, &v.PDBs, "poddisruptionbudgets"), listAll(c.replicaSets, &rs, "replicasets"),
		listAll(c.statefulSets, &ss, "statefulsets"), listAll(c.jobs, &jobs, "jobs"),
		listAll(c.rcs, &rcs, "replicationcontrollers"), listAll(c.namespaces, &v.Namespaces, "namespaces"),
		listAll(c.pvs, &v.PersistentVolumes, "persistentvolumes"),
		listAll(c.pvcs, &v.PersistentVolumeClaims, "persistentvolumeclaims"),
		listAll(c.classes, &v.StorageClasses, "storageclasses"), listAll(c.csiNodes, &v.CSINodes, "csinodes"),
	)
	if err != nil {
		return nil, err
	}
	// Caches list in no stable order; nodes by name keep the loop's
	// snapshot of unchanged nodes unchanged, and its decisions repeatable.
	slices.SortFunc(v.Nodes, func(a, b *corev1.Node) int { return strings.Compare(a.Name, b.Name) })
	v.Controllers = newControllers(rs, ss, jobs, rcs)
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

// Current returns the view the last loop took, or ErrNotSynced before the
// first. Its nodes may be read from any goroutine; its pod index only by
// the loop's.
func (c *Cluster) Current() (*nodeautoscaler.View, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.view == nil {
		return nil, ErrNotSynced
	}
	return c.view, nil
}
