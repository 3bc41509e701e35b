package simulator

import (
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kscale/kscale/internal/scheduling"
)

// ErrPodExists is the error, wrapped, of AddPod when the snapshot holds a
// pod of that namespace and name.
var ErrPodExists = errors.New("already in the snapshot")

// Snapshot is an in-memory cluster: nodes, the pods bound to them,
// namespaces, PersistentVolumes and PersistentVolumeClaims. It is not safe
// for concurrent use. Objects handed to it are referenced, never copied or
// modified, and must not be modified while the snapshot holds them.
//
// Fork starts a layer of changes that Revert undoes and Commit keeps; layers
// nest. Changes are recorded as an undo log, so forking costs nothing and
// reverting costs only the changes made since the fork.
type Snapshot struct {
	nodes      []*nodeInfo
	byName     map[string]*nodeInfo
	namespaces map[string]*corev1.Namespace
	pvcs       map[types.NamespacedName]*corev1.PersistentVolumeClaim
	pvs        map[string]*corev1.PersistentVolume
	classes    map[string]*storagev1.StorageClass
	csiNodes   map[string]*storagev1.CSINode
	// claimUsers counts the bound pods mounting each claim; assumed holds
	// the late-binding claims placements bound (see useClaims).
	claimUsers map[claimKey]int
	assumed    map[claimKey]assumedClaim
	podCount   int
	// podIndex maps namespace/name to a pod; built on first lookup. Pods
	// added by AddPod enter it at once; pods placed by a simulation run
	// only when a lookup needs them (unindexed counts those), so runs that
	// are reverted never touch it. A removed pod stays in it, unbound
	// (stale counts those), until a pod of its name replaces it or a sweep
	// drops it, so removing nodes and reverting that costs no index work.
	podIndex  map[types.NamespacedName]*podEntry
	unindexed int
	stale     int
	// idx holds the label and anti-affinity indexes; built on first use.
	idx *indexes
	// groups is the last pod grouping; see groupPods.
	groups *groupCache
	// antiPods counts bound pods with required anti-affinity terms.
	antiPods int
	journal  []change
	forks    []int
	nextID   int
}

// nodeInfo is one node and what is bound to it.
type nodeInfo struct {
	node      *corev1.Node
	id        int
	alloc     scheduling.Resources
	requested scheduling.Resources
	pods      []*podEntry
	ports     []scheduling.HostPort
	// lastSpec is the spec AddPod last parsed for a plain pod bound to
	// the node; equal plain pods that follow share it (see boundSpec).
	lastSpec *podSpec
}

// podEntry is one pod bound to a node in the snapshot.
type podEntry struct {
	pod  *corev1.Pod
	spec *podSpec
	node *nodeInfo
	// indexed is true while podIndex holds the entry under its name;
	// bound while the entry is bound to its node.
	indexed, bound bool
}

// NewSnapshot returns an empty snapshot.
func NewSnapshot() *Snapshot {
	return &Snapshot{
		byName:     map[string]*nodeInfo{},
		namespaces: map[string]*corev1.Namespace{},
		pvcs:       map[types.NamespacedName]*corev1.PersistentVolumeClaim{},
		pvs:        map[string]*corev1.PersistentVolume{},
		classes:    map[string]*storagev1.StorageClass{},
		csiNodes:   map[string]*storagev1.CSINode{},
	}
}

// Reserve sizes the snapshot for about nodes more nodes and pods more
// pods, so that adding a whole cluster to a new snapshot does not grow its
// node and pod indexes step by step. It changes nothing else.
func (s *Snapshot) Reserve(nodes, pods int) {
	s.nodes = slices.Grow(s.nodes, nodes)
	if len(s.byName) == 0 && nodes > 0 {
		s.byName = make(map[string]*nodeInfo, nodes)
	}
	if s.podCount == 0 && len(s.podIndex) == 0 && pods > 0 {
		// Without pods the index is complete however it is made.
		s.podIndex = make(map[types.NamespacedName]*podEntry, pods)
	}
}

// AddNode adds a node. It fails when a node of that name exists.
func (s *Snapshot) AddNode(node *corev1.Node) error {
	if node == nil || node.Name == "" {
		return fmt.Errorf("adding node: node has no name")
	}
	if _, ok := s.byName[node.Name]; ok {
		return fmt.Errorf("adding node %q: already in the snapshot", node.Name)
	}
	s.addNode(node)
	return nil
}

func (s *Snapshot) addNode(node *corev1.Node) *nodeInfo {
	return s.addNodeAlloc(node, scheduling.NodeAllocatable(node))
}

func (s *Snapshot) addNodeAlloc(node *corev1.Node, alloc scheduling.Resources) *nodeInfo {
	n := &nodeInfo{node: node, id: s.nextID, alloc: alloc}
	s.nextID++
	s.nodes = append(s.nodes, n)
	s.byName[node.Name] = n
	s.record(change{op: opAddNode, node: n})
	return n
}

// RemoveNode removes a node and every pod bound to it.
func (s *Snapshot) RemoveNode(name string) error {
	n, ok := s.byName[name]
	if !ok {
		return fmt.Errorf("removing node %q: not in the snapshot", name)
	}
	if len(s.forks) > 0 {
		s.journal = slices.Grow(s.journal, len(n.pods)+1)
	}
	for len(n.pods) > 0 {
		s.removePodAt(n, len(n.pods)-1)
	}
	pos := s.nodePos(n)
	s.nodes = append(s.nodes[:pos], s.nodes[pos+1:]...)
	delete(s.byName, name)
	s.record(change{op: opRemoveNode, node: n, pos: pos})
	return nil
}

func (s *Snapshot) nodePos(n *nodeInfo) int {
	for i, m := range s.nodes {
		if m == n {
			return i
		}
	}
	return -1
}

// AddPod adds a pod bound to the node named by its spec.nodeName. Like
// kube-scheduler's cache, the snapshot should hold only pods that are not
// Succeeded or Failed; callers filter those out.
func (s *Snapshot) AddPod(pod *corev1.Pod) error {
	if pod == nil || pod.Name == "" {
		return fmt.Errorf("adding pod: pod has no name")
	}
	n, ok := s.byName[pod.Spec.NodeName]
	if !ok {
		return fmt.Errorf("adding pod %s/%s: node %q not in the snapshot", pod.Namespace, pod.Name, pod.Spec.NodeName)
	}
	key := types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}
	s.completeIndex()
	old := s.podIndex[key]
	if old != nil && old.bound {
		return fmt.Errorf("adding pod %s/%s: %w", pod.Namespace, pod.Name, ErrPodExists)
	}
	e := &podEntry{pod: pod, spec: n.boundSpec(pod)}
	s.place(e, n)
	s.setIndex(key, old, e)
	return nil
}

// RemovePod removes the named pod from the snapshot.
func (s *Snapshot) RemovePod(namespace, name string) error {
	e, ok := s.lookupPod(types.NamespacedName{Namespace: namespace, Name: name})
	if !ok {
		return fmt.Errorf("removing pod %s/%s: not in the snapshot", namespace, name)
	}
	for i, p := range e.node.pods {
		if p == e {
			s.removePodAt(e.node, i)
			break
		}
	}
	return nil
}

// place binds the entry to the node and records the change.
func (s *Snapshot) place(e *podEntry, n *nodeInfo) {
	s.link(e, n)
	s.record(change{op: opAddPod, node: n, entry: e})
}

// link binds the entry to the node without recording.
func (s *Snapshot) link(e *podEntry, n *nodeInfo) {
	e.node, e.bound = n, true
	n.pods = append(n.pods, e)
	n.requested.Add(&e.spec.requests, 1)
	n.ports = append(n.ports, e.spec.ports...)
	if len(e.spec.claims) > 0 {
		s.useClaims(e, n, 1)
	}
	s.podCount++
	if len(e.spec.anti) > 0 {
		s.antiPods++
	}
	if e.indexed {
		s.stale--
	} else {
		s.unindexed++
	}
	if s.idx != nil {
		s.idx.add(e)
	}
}

func (s *Snapshot) removePodAt(n *nodeInfo, i int) {
	e := n.pods[i]
	s.unlinkAt(n, i)
	s.record(change{op: opRemovePod, node: n, entry: e, pos: i})
}

// unlinkAt unbinds the node's i-th pod without recording.
func (s *Snapshot) unlinkAt(n *nodeInfo, i int) {
	e := n.pods[i]
	n.pods = append(n.pods[:i], n.pods[i+1:]...)
	n.requested.Add(&e.spec.requests, -1)
	if len(e.spec.ports) > 0 {
		n.ports = n.ports[:0]
		for _, p := range n.pods {
			n.ports = append(n.ports, p.spec.ports...)
		}
	}
	if len(e.spec.claims) > 0 {
		s.useClaims(e, n, -1)
	}
	s.podCount--
	if len(e.spec.anti) > 0 {
		s.antiPods--
	}
	e.bound = false
	if e.indexed {
		s.stale++
		s.sweepIndex()
	} else {
		s.unindexed--
	}
	if s.idx != nil {
		s.idx.remove(e)
	}
}

// unlinkLast unbinds the node's last k pods, which share one spec (they
// were bound together by a bulk placement), without recording.
func (s *Snapshot) unlinkLast(n *nodeInfo, k int) {
	tail := n.pods[len(n.pods)-k:]
	spec := tail[0].spec
	if len(spec.ports) > 0 || len(spec.claims) > 0 || s.idx != nil || tail[0].indexed {
		for range k {
			s.unlinkAt(n, len(n.pods)-1)
		}
		return
	}
	clear(tail)
	n.pods = n.pods[:len(n.pods)-k]
	n.requested.Add(&spec.requests, -int64(k))
	s.podCount -= k
	s.unindexed -= k
	if len(spec.anti) > 0 {
		s.antiPods -= k
	}
}

// lookupPod returns the bound pod of that name.
func (s *Snapshot) lookupPod(key types.NamespacedName) (*podEntry, bool) {
	s.completeIndex()
	e, ok := s.podIndex[key]
	if !ok || !e.bound {
		return nil, false
	}
	return e, true
}

// completeIndex makes the lookup index hold every bound pod.
func (s *Snapshot) completeIndex() {
	if s.podIndex != nil && s.unindexed == 0 {
		return
	}
	if s.podIndex == nil {
		s.podIndex = make(map[types.NamespacedName]*podEntry, s.podCount)
	}
	for _, n := range s.nodes {
		for _, e := range n.pods {
			if !e.indexed {
				key := types.NamespacedName{Namespace: e.pod.Namespace, Name: e.pod.Name}
				s.setIndex(key, s.podIndex[key], e)
			}
		}
	}
}

// setIndex enters the bound, unindexed entry e into the index under key,
// replacing old (the entry the index held there, or nil).
func (s *Snapshot) setIndex(key types.NamespacedName, old, e *podEntry) {
	if old != nil && old != e && !old.bound {
		old.indexed = false
		s.stale--
	}
	s.podIndex[key] = e
	e.indexed = true
	s.unindexed--
}

// minSweep is the number of removed pods the index keeps before a sweep.
const minSweep = 4096

// sweepIndex drops the removed pods from the index once they outnumber
// twice the bound pods it holds (and minSweep), so its size stays within
// three times the pods and sweeps cost amortized constant time per removal.
func (s *Snapshot) sweepIndex() {
	if s.stale <= minSweep || s.stale <= 2*(len(s.podIndex)-s.stale) {
		return
	}
	for k, e := range s.podIndex {
		if !e.bound {
			delete(s.podIndex, k)
			e.indexed = false
		}
	}
	s.stale = 0
}
