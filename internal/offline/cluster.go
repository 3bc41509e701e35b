package offline

import (
	"slices"

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
	// changed; nodeGen counts the changes of nodes.
	gen, nodeGen int
	// requested sums the requests of bound, unfinished pods; allocatable
	// sums the nodes' allocatable. Both are kept up to date by every change.
	requested, allocatable Usage
	// owned indexes the pods by their controller (namespace/name), in
	// creation order; onNode the bound pods by node. They keep a tick's
	// work linear in the pods however many workloads and nodes there are.
	owned  map[string][]string
	onNode map[string]map[string]struct{}
	// seq numbers the pods in creation order; nextSeq is the next one.
	seq     map[string]int
	nextSeq int
	// index holds the pods sorted out for the autoscaler, in creation
	// order like podOrder; every change goes to it.
	index *nodeautoscaler.PodIndex
	// unbound holds the pods the scheduler tries to place: not bound, not
	// finished.
	unbound map[string]struct{}
	// storage holds the storage classes, volumes and claims.
	storage *storage
}

func newCluster() *cluster {
	return &cluster{nodes: map[string]*corev1.Node{}, pods: map[string]*corev1.Pod{}, owned: map[string][]string{},
		onNode: map[string]map[string]struct{}{}, seq: map[string]int{}, index: nodeautoscaler.NewPodIndex(),
		unbound: map[string]struct{}{}, storage: newStorage()}
}

func podKey(p *corev1.Pod) string { return p.Namespace + "/" + p.Name }

func (c *cluster) nodeList() []*corev1.Node {
	out := make([]*corev1.Node, 0, len(c.nodeOrder))
	for _, n := range c.nodeOrder {
		out = append(out, c.nodes[n])
	}
	return out
}

// podList returns the pods in creation order. The tick's work takes the
// pods it needs from the indexes; this full list is for the rare readers
// of every pod, and is not kept, so replaced pods are not held.
func (c *cluster) podList() []*corev1.Pod {
	out := make([]*corev1.Pod, 0, len(c.podOrder))
	for _, k := range c.podOrder {
		out = append(out, c.pods[k])
	}
	return out
}

// podsOnNode returns the pods bound to the node in creation order.
func (c *cluster) podsOnNode(node string) []*corev1.Pod {
	keys := make([]string, 0, len(c.onNode[node]))
	for k := range c.onNode[node] {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return c.seq[a] - c.seq[b] })
	out := make([]*corev1.Pod, 0, len(keys))
	for _, k := range keys {
		out = append(out, c.pods[k])
	}
	return out
}

func (c *cluster) addNode(n *corev1.Node) {
	c.gen++
	c.nodeGen++
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
	c.nodeGen++
	c.allocatable.add(nodeUsage(old), -1)
	delete(c.nodes, name)
	c.nodeOrder = slices.DeleteFunc(c.nodeOrder, func(s string) bool { return s == name })
	gone := make([]string, 0, len(c.onNode[name]))
	for k := range c.onNode[name] {
		gone = append(gone, k)
	}
	c.removePods(gone)
}

func (c *cluster) addPod(p *corev1.Pod) {
	c.gen++
	k := podKey(p)
	if old, ok := c.pods[k]; ok {
		c.requested.add(podUsage(old), -1)
		c.unbind(old, k)
	} else {
		c.podOrder = append(c.podOrder, k)
		c.seq[k] = c.nextSeq
		c.nextSeq++
		if o := controllerOf(p); o != "" {
			c.owned[o] = append(c.owned[o], k)
		}
	}
	c.requested.add(podUsage(p), 1)
	if n := p.Spec.NodeName; n != "" {
		if c.onNode[n] == nil {
			c.onNode[n] = map[string]struct{}{}
		}
		c.onNode[n][k] = struct{}{}
	}
	c.pods[k] = p
	c.index.Set(p)
	if p.Spec.NodeName == "" && !finished(p) {
		c.unbound[k] = struct{}{}
	} else {
		delete(c.unbound, k)
	}
}

// finished reports whether the pod succeeded or failed.
func finished(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

// unboundPods returns the pods that are neither bound nor finished, in
// creation order.
func (c *cluster) unboundPods() []*corev1.Pod {
	keys := make([]string, 0, len(c.unbound))
	for k := range c.unbound {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return c.seq[a] - c.seq[b] })
	out := make([]*corev1.Pod, len(keys))
	for i, k := range keys {
		out[i] = c.pods[k]
	}
	return out
}

func (c *cluster) removePods(keys []string) {
	if len(keys) == 0 {
		return
	}
	c.gen++
	drop := map[string]bool{}
	owners := map[string]bool{}
	for _, k := range keys {
		if old, ok := c.pods[k]; ok {
			c.requested.add(podUsage(old), -1)
			c.unbind(old, k)
			if o := controllerOf(old); o != "" {
				owners[o] = true
			}
			c.index.Delete(old.Namespace, old.Name)
		}
		drop[k] = true
		delete(c.pods, k)
		delete(c.unbound, k)
		delete(c.seq, k)
	}
	c.podOrder = slices.DeleteFunc(c.podOrder, func(s string) bool { return drop[s] })
	for o := range owners {
		c.owned[o] = slices.DeleteFunc(c.owned[o], func(s string) bool { return drop[s] })
		if len(c.owned[o]) == 0 {
			delete(c.owned, o)
		}
	}
}

// unbind drops a stored pod from the node index.
func (c *cluster) unbind(p *corev1.Pod, k string) {
	if set := c.onNode[p.Spec.NodeName]; set != nil {
		delete(set, k)
		if len(set) == 0 {
			delete(c.onNode, p.Spec.NodeName)
		}
	}
}

// controllerOf is the index key of the pod's controller, "" without one.
func controllerOf(p *corev1.Pod) string {
	for _, r := range p.OwnerReferences {
		if r.Controller != nil && *r.Controller {
			return p.Namespace + "/" + r.Name
		}
	}
	return ""
}

// ownedBy returns the pods a workload controls, oldest first.
func (c *cluster) ownedBy(namespace, owner string) []*corev1.Pod {
	keys := c.owned[namespace+"/"+owner]
	out := make([]*corev1.Pod, 0, len(keys))
	for _, k := range keys {
		out = append(out, c.pods[k])
	}
	return out
}

// ownedKeys returns the keys of the pods a workload controls, oldest
// first; the slice is shared until the next change and must not be
// modified.
func (c *cluster) ownedKeys(namespace, owner string) []string {
	return c.owned[namespace+"/"+owner]
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
