package nodeautoscaler

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kscale/kscale/internal/simulator"
)

// snapshotCache keeps the simulator snapshot of ready nodes and their pods
// between loops and applies only what changed. Objects are compared by
// pointer: listers and the offline world replace an object when it
// changes, so an equal pointer means an unchanged object.
type snapshotCache struct {
	snap  *simulator.Snapshot
	nodes map[string]*corev1.Node
	pods  map[types.NamespacedName]*corev1.Pod
	// lastNodes and lastPods are the inputs of the last sync: scale-up and
	// scale-down of one loop sync the same objects, which needs no work.
	lastNodes []*corev1.Node
	lastPods  []*corev1.Pod
}

// sync makes the snapshot hold exactly nodes and pods; on any error the
// cache starts over, so a bad update never leaves it half-applied.
func (c *snapshotCache) sync(nodes []*corev1.Node, pods []*corev1.Pod) (*simulator.Snapshot, error) {
	if c.snap != nil && slices.Equal(c.lastNodes, nodes) && slices.Equal(c.lastPods, pods) {
		return c.snap, nil
	}
	if c.snap == nil {
		c.snap, c.nodes, c.pods = simulator.NewSnapshot(), map[string]*corev1.Node{}, map[types.NamespacedName]*corev1.Pod{}
	}
	if err := c.apply(nodes, pods); err != nil {
		c.snap, c.lastNodes, c.lastPods = nil, nil, nil
		return nil, fmt.Errorf("updating snapshot: %w", err)
	}
	c.lastNodes, c.lastPods = slices.Clone(nodes), slices.Clone(pods)
	return c.snap, nil
}

func (c *snapshotCache) apply(nodes []*corev1.Node, pods []*corev1.Pod) error {
	wantNodes := make(map[string]*corev1.Node, len(nodes))
	for _, n := range nodes {
		wantNodes[n.Name] = n
	}
	for name, n := range c.nodes {
		if wantNodes[name] != n {
			if err := c.snap.RemoveNode(name); err != nil {
				return err
			}
			delete(c.nodes, name)
			for k, p := range c.pods {
				if p.Spec.NodeName == name {
					delete(c.pods, k)
				}
			}
		}
	}
	for _, n := range nodes {
		if _, ok := c.nodes[n.Name]; !ok {
			if err := c.snap.AddNode(n); err != nil {
				return err
			}
			c.nodes[n.Name] = n
		}
	}
	wantPods := make(map[types.NamespacedName]*corev1.Pod, len(pods))
	for _, p := range pods {
		wantPods[podKey(p)] = p
	}
	for k, p := range c.pods {
		if wantPods[k] != p {
			if err := c.snap.RemovePod(p.Namespace, p.Name); err != nil {
				return err
			}
			delete(c.pods, k)
		}
	}
	// New pods go in in input order, so a node's pods tend to keep the
	// order callers list them in.
	for _, p := range pods {
		k := podKey(p)
		if _, ok := c.pods[k]; !ok && wantPods[k] == p {
			if err := c.snap.AddPod(p); err != nil {
				return err
			}
			c.pods[k] = p
		}
	}
	return nil
}

func podKey(p *corev1.Pod) types.NamespacedName {
	return types.NamespacedName{Namespace: p.Namespace, Name: p.Name}
}
