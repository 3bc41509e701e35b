package dryrun

import (
	"context"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/kscale/kscale/internal/nodeautoscaler"
	"github.com/kscale/kscale/internal/nodeautoscaler/actuation"
)

// Cluster is the scale-down side of the cluster whose reads go to the real
// one and whose writes (taints, cordons, evictions) are logged, counted
// and answered as accepted without being made. A pod the dry run "evicted"
// reads as gone once, so that its drain ends as it would live.
type Cluster struct {
	nodeautoscaler.ScaleDownCluster
	metrics *Metrics
	mu      sync.Mutex
	evicted map[types.NamespacedName]types.UID
}

var _ nodeautoscaler.ScaleDownCluster = (*Cluster)(nil)

// NewCluster wraps c; metrics count the calls not made.
func NewCluster(c nodeautoscaler.ScaleDownCluster, metrics *Metrics) *Cluster {
	return &Cluster{ScaleDownCluster: c, metrics: metrics, evicted: map[types.NamespacedName]types.UID{}}
}

// AddTaint implements actuation.Cluster without writing the node.
func (c *Cluster) AddTaint(ctx context.Context, node string, taint corev1.Taint) error {
	c.suppress(ctx, CallAddTaint, "node", node, "taint", taint.Key)
	return nil
}

// RemoveTaints implements actuation.Cluster without writing the node.
func (c *Cluster) RemoveTaints(ctx context.Context, node string, keys ...string) error {
	c.suppress(ctx, CallRemoveTaints, "node", node, "taints", keys)
	return nil
}

// Cordon implements actuation.Cluster without writing the node.
func (c *Cluster) Cordon(ctx context.Context, node string, unschedulable bool) error {
	c.suppress(ctx, CallCordon, "node", node, "unschedulable", unschedulable)
	return nil
}

// EvictPod implements actuation.Cluster without evicting: the pod is
// remembered as gone.
func (c *Cluster) EvictPod(ctx context.Context, pod *corev1.Pod, gracePeriodSeconds int64) error {
	c.suppress(ctx, CallEvictPod, "pod", klog.KObj(pod), "gracePeriodSeconds", gracePeriodSeconds)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.evicted[types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}] = pod.UID
	return nil
}

// GetPod implements actuation.Cluster: a pod the dry run evicted is gone
// (once; later reads see the real pod), any other is read for real.
func (c *Cluster) GetPod(ctx context.Context, namespace, name string) (*corev1.Pod, error) {
	key := types.NamespacedName{Namespace: namespace, Name: name}
	c.mu.Lock()
	uid, gone := c.evicted[key]
	delete(c.evicted, key)
	c.mu.Unlock()
	if gone {
		return nil, fmt.Errorf("pod %s (uid %s) evicted by the dry run: %w", key, uid, actuation.ErrPodGone)
	}
	return c.ScaleDownCluster.GetPod(ctx, namespace, name)
}

func (c *Cluster) suppress(ctx context.Context, call string, kv ...any) {
	c.metrics.suppress(call)
	klog.FromContext(ctx).V(2).Info("Dry run: cluster write not made", append([]any{"call", call}, kv...)...)
}
