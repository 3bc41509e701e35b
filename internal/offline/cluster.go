package offline

import (
	"context"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/nodeautoscaler"
)

// cluster is the in-memory Kubernetes state. Stored objects are never
// modified in place: changes replace them with changed copies, because the
// autoscaler and the snapshots keep references.
type cluster struct {
	nodes      map[string]*corev1.Node
	nodeOrder  []string
	pods       map[string]*corev1.Pod
	podOrder   []string
	daemonSets []*appsv1.DaemonSet
	// gen counts changes, so the scheduler can skip ticks where nothing
	// changed.
	gen int
	// requested sums the requests of bound, unfinished pods; allocatable
	// sums the nodes' allocatable. Both are kept up to date by every change.
	requested, allocatable Usage
}

var _ nodeautoscaler.Cluster = (*cluster)(nil)

func newCluster() *cluster {
	return &cluster{nodes: map[string]*corev1.Node{}, pods: map[string]*corev1.Pod{}}
}

func podKey(p *corev1.Pod) string { return p.Namespace + "/" + p.Name }

// ListNodes returns the nodes in registration order.
func (c *cluster) ListNodes(context.Context) ([]*corev1.Node, error) { return c.nodeList(), nil }

// ListPods returns the pods in creation order.
func (c *cluster) ListPods(context.Context) ([]*corev1.Pod, error) { return c.podList(), nil }

// ListDaemonSets returns the DaemonSets.
func (c *cluster) ListDaemonSets(context.Context) ([]*appsv1.DaemonSet, error) {
	return slices.Clone(c.daemonSets), nil
}

func (c *cluster) nodeList() []*corev1.Node {
	out := make([]*corev1.Node, 0, len(c.nodeOrder))
	for _, n := range c.nodeOrder {
		out = append(out, c.nodes[n])
	}
	return out
}

func (c *cluster) podList() []*corev1.Pod {
	out := make([]*corev1.Pod, 0, len(c.podOrder))
	for _, k := range c.podOrder {
		out = append(out, c.pods[k])
	}
	return out
}

func (c *cluster) addNode(n *corev1.Node) {
	c.gen++
	if old, ok := c.nodes[n.Name]; ok {
		c.allocatable.add(nodeUsage(old), -1)
	} else {
		c.nodeOrder = append(c.nodeOrder, n.Name)
	}
	c.allocatable.add(nodeUsage(n), 1)
	c.nodes[n.Name] = n
}

// removeNode deletes a node and every pod bound to it.
func (c *cluster) removeNode(name string) {
	old, ok := c.nodes[name]
	if !ok {
		return
	}
	c.gen++
	c.allocatable.add(nodeUsage(old), -1)
	delete(c.nodes, name)
	c.nodeOrder = slices.DeleteFunc(c.nodeOrder, func(s string) bool { return s == name })
	var gone []string
	for _, k := range c.podOrder {
		if c.pods[k].Spec.NodeName == name {
			gone = append(gone, k)
		}
	}
	c.removePods(gone)
}

func (c *cluster) addPod(p *corev1.Pod) {
	c.gen++
	k := podKey(p)
	if old, ok := c.pods[k]; ok {
		c.requested.add(podUsage(old), -1)
	} else {
		c.podOrder = append(c.podOrder, k)
	}
	c.requested.add(podUsage(p), 1)
	c.pods[k] = p
}

func (c *cluster) removePods(keys []string) {
	if len(keys) == 0 {
		return
	}
	c.gen++
	drop := map[string]bool{}
	for _, k := range keys {
		if old, ok := c.pods[k]; ok {
			c.requested.add(podUsage(old), -1)
		}
		drop[k] = true
		delete(c.pods, k)
	}
	c.podOrder = slices.DeleteFunc(c.podOrder, func(s string) bool { return drop[s] })
}

// ownedBy returns the pods a workload controls, oldest first.
func (c *cluster) ownedBy(namespace, owner string) []*corev1.Pod {
	var out []*corev1.Pod
	prefix := namespace + "/"
	for _, k := range c.podOrder {
		if !strings.HasPrefix(k, prefix) {
			continue
		}
		p := c.pods[k]
		for _, r := range p.OwnerReferences {
			if r.Name == owner && r.Controller != nil && *r.Controller {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// podsByNode groups the bound pods by node name.
func (c *cluster) podsByNode() map[string][]*corev1.Pod {
	out := map[string][]*corev1.Pod{}
	for _, k := range c.podOrder {
		if p := c.pods[k]; p.Spec.NodeName != "" {
			out[p.Spec.NodeName] = append(out[p.Spec.NodeName], p)
		}
	}
	return out
}
