package live

import (
	"context"
	"errors"
	"fmt"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	policylisters "k8s.io/client-go/listers/policy/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kscale/kscale/internal/nodeautoscaler"
)

// ErrNotSynced means the informer caches have not synced, or no view was
// taken yet; the loop must not decide on a partial cluster.
var ErrNotSynced = errors.New("cluster caches not synced")

// IsNotSynced reports whether err means the caches were not synced.
func IsNotSynced(err error) bool { return errors.Is(err, ErrNotSynced) }

// Cluster is nodeautoscaler.Cluster over shared informers. The loop reads
// the View taken by the last Refresh, so nodes, pods and DaemonSets of one
// loop come from the same moment. The returned objects are the informers'
// cached objects and must not be modified.
type Cluster struct {
	factory    informers.SharedInformerFactory
	nodes      corelisters.NodeLister
	pods       corelisters.PodLister
	daemonSets appslisters.DaemonSetLister
	pdbs       policylisters.PodDisruptionBudgetLister
	synced     []cache.InformerSynced

	mu   sync.Mutex
	view *View
}

var _ nodeautoscaler.Cluster = (*Cluster)(nil)

// View is one consistent read of the cluster.
type View struct {
	// Nodes are every node.
	Nodes []*corev1.Node
	// Pods are every pod.
	Pods []*corev1.Pod
	// DaemonSets are every DaemonSet.
	DaemonSets []*appsv1.DaemonSet
	// PDBs are every PodDisruptionBudget.
	PDBs []*policyv1.PodDisruptionBudget
}

// NewCluster registers the node, pod, DaemonSet and PodDisruptionBudget
// informers on factory;
// start the factory (Start) after every informer of the process was
// registered.
func NewCluster(factory informers.SharedInformerFactory) *Cluster {
	n, p, d := factory.Core().V1().Nodes(), factory.Core().V1().Pods(), factory.Apps().V1().DaemonSets()
	b := factory.Policy().V1().PodDisruptionBudgets()
	return &Cluster{
		factory: factory, nodes: n.Lister(), pods: p.Lister(), daemonSets: d.Lister(), pdbs: b.Lister(),
		synced: []cache.InformerSynced{n.Informer().HasSynced, p.Informer().HasSynced, d.Informer().HasSynced, b.Informer().HasSynced},
	}
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
	var err error
	if v.Nodes, err = c.nodes.List(labels.Everything()); err != nil {
		return nil, fmt.Errorf("listing nodes: %w", err)
	}
	if v.Pods, err = c.pods.List(labels.Everything()); err != nil {
		return nil, fmt.Errorf("listing pods: %w", err)
	}
	if v.DaemonSets, err = c.daemonSets.List(labels.Everything()); err != nil {
		return nil, fmt.Errorf("listing daemonsets: %w", err)
	}
	if v.PDBs, err = c.pdbs.List(labels.Everything()); err != nil {
		return nil, fmt.Errorf("listing poddisruptionbudgets: %w", err)
	}
	c.mu.Lock()
	c.view = v
	c.mu.Unlock()
	return v, nil
}

func (c *Cluster) current() (*View, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.view == nil {
		return nil, ErrNotSynced
	}
	return c.view, nil
}

// ListNodes implements nodeautoscaler.Cluster from the current view.
func (c *Cluster) ListNodes(context.Context) ([]*corev1.Node, error) {
	v, err := c.current()
	if err != nil {
		return nil, err
	}
	return v.Nodes, nil
}

// ListPods implements nodeautoscaler.Cluster from the current view.
func (c *Cluster) ListPods(context.Context) ([]*corev1.Pod, error) {
	v, err := c.current()
	if err != nil {
		return nil, err
	}
	return v.Pods, nil
}

// ListDaemonSets implements nodeautoscaler.Cluster from the current view.
func (c *Cluster) ListDaemonSets(context.Context) ([]*appsv1.DaemonSet, error) {
	v, err := c.current()
	if err != nil {
		return nil, err
	}
	return v.DaemonSets, nil
}

// ListPDBs returns the PodDisruptionBudgets of the current view, for
// scale-down.
func (c *Cluster) ListPDBs(context.Context) ([]*policyv1.PodDisruptionBudget, error) {
	v, err := c.current()
	if err != nil {
		return nil, err
	}
	return v.PDBs, nil
}
