package nodeautoscaler

import (
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kscale/kscale/internal/simulator"
)

// snapshotCache keeps the simulator snapshot of ready nodes and their pods,
// and of the loop's namespaces, PersistentVolumes and
// PersistentVolumeClaims, between loops and applies only what changed.
// Objects are compared by pointer: listers and the offline world replace an
// object when it changes, so an equal pointer means an unchanged object.
//
// The snapshot holds only the pods the cache put there (the loop's
// simulations fork it and revert), so its own index by name finds the
// object held under a listed pod's name.
type snapshotCache struct {
	snap  *simulator.Snapshot
	nodes map[string]*corev1.Node
	// held is the set of pod objects the snapshot holds, which finds an
	// unchanged pod by one pointer lookup. Only a sync from lists that
	// follows another needs it: a cold start leaves it nil, as does a sync
	// from an index, and the next sync from lists builds it.
	held map[*corev1.Pod]struct{}
	// lastNodes and lastPods are the inputs of the last sync: scale-up and
	// scale-down of one loop sync the same objects, which needs no work.
	lastNodes []*corev1.Node
	lastPods  []*corev1.Pod
	// versions are, by node, the index versions of the pods the snapshot
	// holds, when the last sync was from index at generation indexGen.
	versions map[string]uint64
	index    *PodIndex
	indexGen uint64
	objects  objectCache
}

// setObjects sets the namespaces, PersistentVolumes and claims the next
// sync puts into the snapshot.
func (c *snapshotCache) setObjects(o clusterObjects) {
	c.objects.want, c.objects.synced = o, false
}

// sync makes the snapshot hold exactly nodes and pods, and the objects of
// the last setObjects; on any error the cache starts over, so a bad update
// never leaves it half-applied.
func (c *snapshotCache) sync(nodes []*corev1.Node, pods []*corev1.Pod) (*simulator.Snapshot, error) {
	if c.snap != nil && c.objects.synced && c.index == nil && slices.Equal(c.lastNodes, nodes) && slices.Equal(c.lastPods, pods) {
		return c.snap, nil
	}
	c.prepare(len(nodes), len(pods))
	// The lists may change any node's pods: the next sync from an index
	// compares every node.
	c.versions, c.index = nil, nil
	if err := c.apply(nodes, pods); err != nil {
		c.snap, c.lastNodes, c.lastPods = nil, nil, nil
		return nil, fmt.Errorf("updating snapshot: %w", err)
	}
	c.lastNodes, c.lastPods = slices.Clone(nodes), slices.Clone(pods)
	return c.snap, nil
}

// syncIndexed is sync of nodes and of the pods index has on them, in index
// order, with the same result. It compares with what the snapshot holds
// only the nodes whose pods changed since the last sync from index (their
// version), so its work follows the changes, not the number of pods.
func (c *snapshotCache) syncIndexed(nodes []*corev1.Node, index *PodIndex) (*simulator.Snapshot, error) {
	if c.snap != nil && c.objects.synced && c.index == index && c.indexGen == index.Gen() && slices.Equal(c.lastNodes, nodes) {
		return c.snap, nil
	}
	c.prepare(len(nodes), 0)
	// A snapshot that prepare started anew has no index.
	sameNodes := c.index == index && slices.Equal(c.lastNodes, nodes)
	if c.index != index {
		c.versions = map[string]uint64{}
	}
	c.lastPods, c.index, c.held = nil, nil, nil
	if err := c.applyIndexed(nodes, index, sameNodes); err != nil {
		c.snap, c.lastNodes, c.versions = nil, nil, nil
		return nil, fmt.Errorf("updating snapshot: %w", err)
	}
	c.lastNodes, c.index, c.indexGen = slices.Clone(nodes), index, index.Gen()
	return c.snap, nil
}

// applyIndexed does what apply does for the index's pods of nodes. Per
// node the result is the same: the held pods that are still there keep
// their order, the others are removed, and the new ones follow in index
// order, which is the order of apply's input. Removals come first, so a
// name that moved to another node is free when it is added there. With
// sameNodes the snapshot holds these node objects already.
func (c *snapshotCache) applyIndexed(nodes []*corev1.Node, index *PodIndex, sameNodes bool) error {
	if !sameNodes {
		if err := c.applyNodes(nodes); err != nil {
			return err
		}
	}
	var add []*corev1.Pod
	for _, n := range nodes {
		v := index.NodeVersion(n.Name)
		if held, ok := c.versions[n.Name]; ok && held == v {
			continue
		}
		info, ok := c.snap.NodeInfo(n.Name)
		if !ok {
			return fmt.Errorf("node %q not in the snapshot", n.Name)
		}
		have, want := info.Pods(), index.PodsOn(n.Name)
		for _, p := range have {
			if !slices.Contains(want, p) {
				if err := c.snap.RemovePod(p.Namespace, p.Name); err != nil {
					return err
				}
			}
		}
		for _, p := range want {
			if !slices.Contains(have, p) {
				add = append(add, p)
			}
		}
		c.versions[n.Name] = v
	}
	for _, p := range add {
		if err := c.snap.AddPod(p); err != nil {
			return err
		}
	}
	return nil
}

// prepare applies the objects of the last setObjects, starting over when
// the snapshot holds one no longer wanted; a new cache's maps are sized for
// the listed nodes and pods, which a cold start adds.
func (c *snapshotCache) prepare(nodes, pods int) {
	if c.snap != nil && !c.objects.synced && !c.objects.apply(c.snap) {
		// The snapshot cannot forget an object: start over without it.
		c.snap = nil
	}
	if c.snap == nil {
		c.snap, c.nodes, c.held = simulator.NewSnapshot(), make(map[string]*corev1.Node, nodes), nil
		c.snap.Reserve(nodes, pods)
		c.versions, c.index = nil, nil
		c.objects.reset()
		c.objects.apply(c.snap)
	}
	c.objects.synced = true
}

// apply makes the snapshot hold nodes and pods. Of two listed objects of
// one name, the first is kept.
func (c *snapshotCache) apply(nodes []*corev1.Node, pods []*corev1.Pod) error {
	if err := c.applyNodes(nodes); err != nil {
		return err
	}
	if c.snap.PodCount() == 0 {
		// A cold start: every pod is new.
		c.held = nil
		return c.addPods(pods)
	}
	if c.held == nil {
		c.buildHeld()
	}
	// Most pods are held as they are: one pointer lookup each finds them.
	var changed []*corev1.Pod
	held, kept := len(c.held), 0
	for _, p := range pods {
		if _, ok := c.held[p]; ok {
			kept++
		} else {
			changed = append(changed, p)
		}
	}
	// A changed pod replaces the object of its name; other held pods that
	// were not listed are gone.
	replaced := 0
	for _, p := range changed {
		if old, ok := c.snap.Pod(p.Namespace, p.Name); ok {
			if err := c.removePod(old); err != nil {
				return err
			}
			replaced++
		}
	}
	if held-kept > replaced {
		if err := c.removeStalePods(pods); err != nil {
			return err
		}
	}
	return c.addPods(changed)
}

// addPods adds the pods in input order, so a node's pods tend to keep the
// order callers list them in, skipping those whose name the snapshot holds.
func (c *snapshotCache) addPods(pods []*corev1.Pod) error {
	for _, p := range pods {
		err := c.snap.AddPod(p)
		switch {
		case err == nil:
			if c.held != nil {
				c.held[p] = struct{}{}
			}
		case !errors.Is(err, simulator.ErrPodExists):
			return err
		}
	}
	return nil
}

// buildHeld fills held from the snapshot.
func (c *snapshotCache) buildHeld() {
	c.held = make(map[*corev1.Pod]struct{}, c.snap.PodCount())
	for _, info := range c.snap.Nodes() {
		for _, p := range info.Pods() {
			c.held[p] = struct{}{}
		}
	}
}

// removePod removes a held pod from the snapshot.
func (c *snapshotCache) removePod(p *corev1.Pod) error {
	if err := c.snap.RemovePod(p.Namespace, p.Name); err != nil {
		return err
	}
	delete(c.held, p)
	return nil
}

// applyNodes removes the nodes that are gone or changed, with their pods,
// and adds the ones the snapshot lacks.
func (c *snapshotCache) applyNodes(nodes []*corev1.Node) error {
	wantNodes := make(map[string]*corev1.Node, len(nodes))
	for _, n := range nodes {
		wantNodes[n.Name] = n
	}
	for name, n := range c.nodes {
		if wantNodes[name] == n {
			continue
		}
		if info, ok := c.snap.NodeInfo(name); ok && c.held != nil {
			for _, p := range info.Pods() {
				delete(c.held, p)
			}
		}
		if err := c.snap.RemoveNode(name); err != nil {
			return err
		}
		delete(c.nodes, name)
		delete(c.versions, name)
	}
	for _, n := range nodes {
		if _, ok := c.nodes[n.Name]; !ok {
			if err := c.snap.AddNode(n); err != nil {
				return err
			}
			c.nodes[n.Name] = n
		}
	}
	return nil
}

// removeStalePods removes the held pods that are not in pods.
func (c *snapshotCache) removeStalePods(pods []*corev1.Pod) error {
	want := make(map[*corev1.Pod]struct{}, len(pods))
	for _, p := range pods {
		want[p] = struct{}{}
	}
	for p := range c.held {
		if _, ok := want[p]; !ok {
			if err := c.removePod(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// objectCache tracks the namespaces, PersistentVolumes, claims, storage
// classes and CSI nodes the snapshot holds.
type objectCache struct {
	want       clusterObjects
	synced     bool
	namespaces map[string]*corev1.Namespace
	pvs        map[string]*corev1.PersistentVolume
	pvcs       map[types.NamespacedName]*corev1.PersistentVolumeClaim
	classes    map[string]*storagev1.StorageClass
	csiNodes   map[string]*storagev1.CSINode
}

func (c *objectCache) reset() {
	c.namespaces = map[string]*corev1.Namespace{}
	c.pvs = map[string]*corev1.PersistentVolume{}
	c.pvcs = map[types.NamespacedName]*corev1.PersistentVolumeClaim{}
	c.classes = map[string]*storagev1.StorageClass{}
	c.csiNodes = map[string]*storagev1.CSINode{}
}

// apply adds the wanted objects the snapshot lacks or holds in another
// version. It returns false when the snapshot holds an object no longer
// wanted, which only a new snapshot can drop.
func (c *objectCache) apply(snap *simulator.Snapshot) bool {
	if c.namespaces == nil {
		c.reset()
	}
	w := &c.want
	ok := addChanged(c.namespaces, w.namespaces, func(n *corev1.Namespace) string { return n.Name }, snap.AddNamespace)
	ok = addChanged(c.pvs, w.pvs, func(pv *corev1.PersistentVolume) string { return pv.Name }, snap.AddPersistentVolume) && ok
	ok = addChanged(c.pvcs, w.pvcs, func(pvc *corev1.PersistentVolumeClaim) types.NamespacedName {
		return types.NamespacedName{Namespace: pvc.Namespace, Name: pvc.Name}
	}, snap.AddPersistentVolumeClaim) && ok
	ok = addChanged(c.classes, w.classes, func(sc *storagev1.StorageClass) string { return sc.Name }, snap.AddStorageClass) && ok
	return addChanged(c.csiNodes, w.csiNodes, func(n *storagev1.CSINode) string { return n.Name }, snap.AddCSINode) && ok
}

// addChanged adds every object of want that have lacks or holds as another
// object, and reports whether have holds nothing beyond want (want has no
// two objects of one key: it is a list of a cluster's objects).
func addChanged[K comparable, V comparable](have map[K]V, want []V, key func(V) K, add func(V)) bool {
	for _, o := range want {
		if k := key(o); have[k] != o {
			add(o)
			have[k] = o
		}
	}
	return len(have) == len(want)
}
