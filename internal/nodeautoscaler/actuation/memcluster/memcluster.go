package memcluster

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/nodeautoscaler/actuation"
	"github.com/kscale/kscale/internal/nodeautoscaler/scaledown"
)

// Cluster holds nodes, pods and PodDisruptionBudgets. Stored objects are
// replaced, never changed in place.
type Cluster struct {
	nodes    map[string]*corev1.Node
	pods     map[string]*corev1.Pod
	order    []string
	pdbs     []*policyv1.PodDisruptionBudget
	expected map[string]int
	// goneAt holds the pods being deleted; unstamped counts those whose
	// stored object does not show the deletion timestamp yet.
	goneAt    map[string]termination
	unstamped int
	readyAt   map[string]time.Time
	now       time.Time
	// Evictions lists namespace/name of every accepted eviction, in order.
	Evictions []string
	// OnEvict, when set, runs after an accepted eviction (for example to
	// create the replacement pod a ReplicaSet would).
	OnEvict func(evicted *corev1.Pod)
}

var _ actuation.Cluster = (*Cluster)(nil)

// New returns an empty cluster at time now.
func New(now time.Time) *Cluster {
	return &Cluster{nodes: map[string]*corev1.Node{}, pods: map[string]*corev1.Pod{}, expected: map[string]int{},
		goneAt: map[string]termination{}, readyAt: map[string]time.Time{}, now: now}
}

func key(ns, name string) string { return ns + "/" + name }

// termination is a pod's graceful deletion: it started at since and the pod
// disappears at until. An eviction only records it: unstamped is the
// evicted object while it is still stored without its deletion timestamp,
// and the first read of the pod stores the stamped copy (see stamp), so
// draining many pods copies only the pods something reads.
type termination struct {
	since, until time.Time
	unstamped    *corev1.Pod
}

// stamp stores the stamped copy of the pod under k if its termination is
// still unstamped.
func (c *Cluster) stamp(k string) {
	t, ok := c.goneAt[k]
	if !ok || t.unstamped == nil {
		return
	}
	if c.pods[k] == t.unstamped {
		// Stored pods are never changed in place, so the new version
		// shares everything but the deletion timestamp with the old one.
		cp := *t.unstamped
		ts := metav1.NewTime(t.since)
		cp.DeletionTimestamp = &ts
		c.pods[k] = &cp
	}
	t.unstamped = nil
	c.goneAt[k] = t
	c.unstamped--
}

// stampAll stamps every unstamped termination.
func (c *Cluster) stampAll() {
	if c.unstamped == 0 {
		return
	}
	for k := range c.goneAt {
		c.stamp(k)
	}
}

// forget drops the pod's termination.
func (c *Cluster) forget(k string) {
	if t, ok := c.goneAt[k]; ok {
		if t.unstamped != nil {
			c.unstamped--
		}
		delete(c.goneAt, k)
	}
}

// AddNode stores a node.
func (c *Cluster) AddNode(n *corev1.Node) { c.nodes[n.Name] = n }

// Node returns the stored node.
func (c *Cluster) Node(name string) (*corev1.Node, bool) {
	n, ok := c.nodes[name]
	return n, ok
}

// AddPod stores a pod that turns Ready at readyAt (the zero time: as it is).
func (c *Cluster) AddPod(p *corev1.Pod, readyAt time.Time) {
	k := key(p.Namespace, p.Name)
	if _, ok := c.pods[k]; !ok {
		c.order = append(c.order, k)
	}
	c.pods[k] = p
	c.forget(k)
	if !readyAt.IsZero() {
		c.readyAt[k] = readyAt
	}
}

// AddPDB stores a budget; expected is the pod count its controllers want
// (0: the selected pods).
func (c *Cluster) AddPDB(pdb *policyv1.PodDisruptionBudget, expected int) {
	c.pdbs = append(c.pdbs, pdb)
	c.expected[pdb.Namespace+"/"+pdb.Name] = expected
}

// Pods returns the stored pods in creation order.
func (c *Cluster) Pods() []*corev1.Pod {
	c.stampAll()
	out := make([]*corev1.Pod, 0, len(c.order))
	for _, k := range c.order {
		out = append(out, c.pods[k])
	}
	return out
}

// PDBs returns the budgets with their status computed now.
func (c *Cluster) PDBs() []*policyv1.PodDisruptionBudget {
	out := make([]*policyv1.PodDisruptionBudget, len(c.pdbs))
	pods := c.Pods()
	for i, p := range c.pdbs {
		cp := p.DeepCopy()
		cp.Status.DisruptionsAllowed = scaledown.DisruptionsAllowed(p, pods, c.expected[p.Namespace+"/"+p.Name])
		out[i] = cp
	}
	return out
}

// Tick moves the cluster to now: terminating pods past their grace period
// disappear, pods past their start time turn Ready.
func (c *Cluster) Tick(now time.Time) {
	c.stampAll()
	c.now = now
	for k, t := range c.goneAt {
		if !now.Before(t.until) {
			c.remove(k)
		}
	}
	for k, at := range c.readyAt {
		if p, ok := c.pods[k]; ok && !now.Before(at) {
			cp := p.DeepCopy()
			cp.Status.Phase = corev1.PodRunning
			cp.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
			c.pods[k] = cp
			delete(c.readyAt, k)
		}
	}
}

func (c *Cluster) remove(k string) {
	delete(c.pods, k)
	c.forget(k)
	delete(c.readyAt, k)
	c.order = slices.DeleteFunc(c.order, func(s string) bool { return s == k })
}

// AddTaint implements actuation.Cluster.
func (c *Cluster) AddTaint(_ context.Context, node string, taint corev1.Taint) error {
	n, ok := c.nodes[node]
	if !ok {
		return fmt.Errorf("tainting node %s: not found", node)
	}
	for _, t := range n.Spec.Taints {
		if t.Key == taint.Key {
			return nil
		}
	}
	cp := n.DeepCopy()
	cp.Spec.Taints = append(cp.Spec.Taints, taint)
	c.nodes[node] = cp
	return nil
}

// RemoveTaints implements actuation.Cluster.
func (c *Cluster) RemoveTaints(_ context.Context, node string, keys ...string) error {
	n, ok := c.nodes[node]
	if !ok {
		return nil
	}
	cp := n.DeepCopy()
	cp.Spec.Taints = slices.DeleteFunc(cp.Spec.Taints, func(t corev1.Taint) bool { return slices.Contains(keys, t.Key) })
	c.nodes[node] = cp
	return nil
}

// Cordon implements actuation.Cluster.
func (c *Cluster) Cordon(_ context.Context, node string, unschedulable bool) error {
	n, ok := c.nodes[node]
	if !ok {
		if !unschedulable {
			return nil
		}
		return fmt.Errorf("cordoning node %s: not found", node)
	}
	cp := n.DeepCopy()
	cp.Spec.Unschedulable = unschedulable
	c.nodes[node] = cp
	return nil
}

// GetNode implements actuation.Cluster.
func (c *Cluster) GetNode(_ context.Context, node string) (*corev1.Node, error) {
	n, ok := c.nodes[node]
	if !ok {
		return nil, fmt.Errorf("getting node %s: not found", node)
	}
	return n, nil
}

// SetNodeAnnotation sets (or, with an empty value, removes) an annotation
// of a stored node, as another controller would.
func (c *Cluster) SetNodeAnnotation(node, key, value string) {
	n, ok := c.nodes[node]
	if !ok {
		return
	}
	cp := n.DeepCopy()
	if value == "" {
		delete(cp.Annotations, key)
	} else {
		if cp.Annotations == nil {
			cp.Annotations = map[string]string{}
		}
		cp.Annotations[key] = value
	}
	c.nodes[node] = cp
}

// EvictPod implements actuation.Cluster: it checks the UID precondition and
// every budget selecting the pod, then starts the pod's graceful deletion.
func (c *Cluster) EvictPod(_ context.Context, pod *corev1.Pod, grace int64) error {
	k := key(pod.Namespace, pod.Name)
	cur, ok := c.pods[k]
	if !ok || cur.UID != pod.UID {
		return fmt.Errorf("evicting pod %s: %w", k, actuation.ErrPodGone)
	}
	if _, terminating := c.goneAt[k]; terminating || cur.DeletionTimestamp != nil {
		return nil
	}
	var pdbs []*policyv1.PodDisruptionBudget
	if len(c.pdbs) > 0 { // computing the budgets' status lists every pod
		pdbs = c.PDBs()
	}
	for _, p := range pdbs {
		if selects(p, cur) && p.Status.DisruptionsAllowed < 1 {
			return fmt.Errorf("evicting pod %s: budget %s: %w", k, p.Name, actuation.ErrEvictionRefused)
		}
	}
	c.Evictions = append(c.Evictions, k)
	if grace == 0 {
		c.remove(k)
	} else {
		c.goneAt[k] = termination{since: c.now, until: c.now.Add(time.Duration(grace) * time.Second), unstamped: cur}
		c.unstamped++
	}
	if c.OnEvict != nil {
		c.OnEvict(cur)
	}
	return nil
}

// GetPod implements actuation.Cluster.
func (c *Cluster) GetPod(_ context.Context, namespace, name string) (*corev1.Pod, error) {
	k := key(namespace, name)
	c.stamp(k)
	p, ok := c.pods[k]
	if !ok {
		return nil, fmt.Errorf("getting pod %s/%s: %w", namespace, name, actuation.ErrPodGone)
	}
	return p, nil
}

func selects(pdb *policyv1.PodDisruptionBudget, p *corev1.Pod) bool {
	if pdb.Namespace != p.Namespace {
		return false
	}
	sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	return err == nil && sel.Matches(labelsOf(p))
}

// Nodes returns the stored nodes sorted by name.
func (c *Cluster) Nodes() []*corev1.Node {
	out := make([]*corev1.Node, 0, len(c.nodes))
	for _, n := range c.nodes {
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b *corev1.Node) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// RemoveNode deletes a node and the pods bound to it, as a terminated
// machine and the pod garbage collector would.
func (c *Cluster) RemoveNode(name string) {
	delete(c.nodes, name)
	for _, k := range slices.Clone(c.order) {
		if c.pods[k].Spec.NodeName == name {
			c.remove(k)
		}
	}
}

// PodsOnNode implements actuation.Cluster.
func (c *Cluster) PodsOnNode(_ context.Context, node string) ([]*corev1.Pod, error) {
	var out []*corev1.Pod
	for _, p := range c.Pods() {
		if p.Spec.NodeName == node {
			out = append(out, p)
		}
	}
	return out, nil
}
