package fidelity

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// Shrink reduces a disagreement to a small case that still shows it: as
// few pending pods (one, for a pair checked on its own), nodes, bound pods,
// objects, fields and labels as keep both verdicts on the pod and node the
// same. It asks the oracle once per attempt; attempts that break the case
// are dropped.
func Shrink(o *Oracle, d Disagreement) Disagreement {
	c := d.Cluster.Clone()
	c.Seed = 0
	pod, target := c.Pending[d.Pod].Name, c.Nodes[d.Node].Name
	sequential := d.Sequence != nil
	if !sequential {
		c.Pending = []*corev1.Pod{c.Pending[d.Pod]}
	}
	best := d
	best.Cluster = c
	same := func(cand *Cluster) (Disagreement, bool) {
		ds, err := check(o, cand, sequential)
		if err != nil {
			return Disagreement{}, false
		}
		for _, got := range ds {
			if got.Cluster.Pending[got.Pod].Name == pod && got.Cluster.Nodes[got.Node].Name == target &&
				got.Oracle.Filter == d.Oracle.Filter && got.Simulator.Filter == d.Simulator.Filter &&
				(got.Simulator.Reason == PlacedHere) == (d.Simulator.Reason == PlacedHere) {
				return got, true
			}
		}
		return Disagreement{}, false
	}
	if got, ok := same(c); ok {
		best = got
	}
	for progress := true; progress; {
		progress = false
		for _, step := range shrinkSteps {
			for i := 0; ; {
				cand := best.Cluster.Clone()
				applied, ok := step(cand, i, target, pod)
				if !ok {
					break
				}
				if !applied {
					i++
					continue
				}
				if got, still := same(cand); still {
					best, progress = got, true
					continue // the same index now names the next element
				}
				i++
			}
		}
	}
	return best
}

// check compares the simulator and the oracle on a case: each pending pod
// on its own, or (sequential) scheduled in order as FilterSchedulable
// places them.
func check(o *Oracle, c *Cluster, sequential bool) ([]Disagreement, error) {
	if sequential {
		seq, err := SimulateSequence(c)
		if err != nil {
			return nil, err
		}
		resp, err := o.Evaluate(seq.Request())
		if err != nil {
			return nil, err
		}
		return seq.Compare(resp, NewTally())
	}
	resp, err := o.Evaluate(c.Request())
	if err != nil {
		return nil, err
	}
	sim, err := c.Simulate()
	if err != nil {
		return nil, err
	}
	return Compare(c, resp, sim, NewTally())
}

// A shrinkStep applies its i-th simplification to c. ok is false when
// there is no i-th one; applied is false when it does not apply to c (the
// search moves on to i+1).
type shrinkStep func(c *Cluster, i int, target, pod string) (applied, ok bool)

var shrinkSteps = []shrinkStep{
	dropPending, dropNode, dropBound, dropObject, simplifyPending, simplifyBound, simplifyNode,
}

// dropPending removes a pending pod other than the disagreement's.
func dropPending(c *Cluster, i int, _, pod string) (bool, bool) {
	if i >= len(c.Pending) {
		return false, false
	}
	if c.Pending[i].Name == pod {
		return false, true
	}
	c.Pending = slices.Delete(c.Pending, i, i+1)
	return true, true
}

func dropNode(c *Cluster, i int, target, _ string) (bool, bool) {
	if i >= len(c.Nodes) {
		return false, false
	}
	name := c.Nodes[i].Name
	if name == target {
		return false, true
	}
	c.Nodes = slices.Delete(c.Nodes, i, i+1)
	c.Pods = slices.DeleteFunc(c.Pods, func(p *corev1.Pod) bool { return p.Spec.NodeName == name })
	return true, true
}

func dropBound(c *Cluster, i int, _, _ string) (bool, bool) {
	if i >= len(c.Pods) {
		return false, false
	}
	c.Pods = slices.Delete(c.Pods, i, i+1)
	return true, true
}

// dropObject removes the i-th of the cluster's other objects, in the
// order namespaces, volumes, claims, classes, CSI nodes, services,
// ReplicaSets.
func dropObject(c *Cluster, i int, _, _ string) (bool, bool) {
	lists := []func(int) bool{
		deleter(&c.Namespaces), deleter(&c.PersistentVolumes), deleter(&c.PersistentVolumeClaims),
		deleter(&c.StorageClasses), deleter(&c.CSINodes), deleter(&c.Services), deleter(&c.ReplicaSets),
	}
	lens := []int{len(c.Namespaces), len(c.PersistentVolumes), len(c.PersistentVolumeClaims),
		len(c.StorageClasses), len(c.CSINodes), len(c.Services), len(c.ReplicaSets)}
	for k, del := range lists {
		if i < lens[k] {
			return del(i), true
		}
		i -= lens[k]
	}
	return false, false
}

func deleter[T any](s *[]T) func(int) bool {
	return func(i int) bool {
		*s = slices.Delete(*s, i, i+1)
		return true
	}
}

func simplifyPending(c *Cluster, i int, _, _ string) (bool, bool) {
	for _, p := range c.Pending {
		n := len(podSimplifications(p))
		if i < n {
			return simplifyPod(p, i)
		}
		i -= n
	}
	return false, false
}

func simplifyBound(c *Cluster, i int, _, _ string) (bool, bool) {
	for _, p := range c.Pods {
		n := len(podSimplifications(p))
		if i < n {
			return simplifyPod(p, i)
		}
		i -= n
	}
	return false, false
}

func simplifyNode(c *Cluster, i int, _, _ string) (bool, bool) {
	for _, n := range c.Nodes {
		s := nodeSimplifications(n)
		if i < len(s) {
			return s[i](), true
		}
		i -= len(s)
	}
	return false, false
}

func simplifyPod(p *corev1.Pod, i int) (bool, bool) {
	s := podSimplifications(p)
	if i >= len(s) {
		return false, false
	}
	return s[i](), true
}
