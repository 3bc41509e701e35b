package fidelity

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// Shrink reduces a disagreement to a small case that still shows it: one
// pending pod, and as few nodes, bound pods, objects, fields and labels as
// keep both verdicts on the node the same. It asks the oracle once per
// attempt; attempts that break the case are dropped.
func Shrink(o *Oracle, d Disagreement) Disagreement {
	c := d.Cluster.Clone()
	c.Seed = 0
	c.Pending = []*corev1.Pod{c.Pending[d.Pod]}
	target := c.Nodes[d.Node].Name
	best := Disagreement{Cluster: c, Node: d.Node, Oracle: d.Oracle, Simulator: d.Simulator}
	same := func(cand *Cluster) (Disagreement, bool) {
		node := slices.IndexFunc(cand.Nodes, func(n *corev1.Node) bool { return n.Name == target })
		if node < 0 {
			return Disagreement{}, false
		}
		resp, err := o.Evaluate(cand.Request())
		if err != nil {
			return Disagreement{}, false
		}
		sim, err := cand.Simulate()
		if err != nil {
			return Disagreement{}, false
		}
		ds, err := Compare(cand, resp, sim, NewTally())
		if err != nil {
			return Disagreement{}, false
		}
		for _, got := range ds {
			if got.Node == node && got.Oracle.Filter == d.Oracle.Filter && got.Simulator.Filter == d.Simulator.Filter {
				return got, true
			}
		}
		return Disagreement{}, false
	}
	for progress := true; progress; {
		progress = false
		for _, step := range shrinkSteps {
			for i := 0; ; {
				cand := best.Cluster.Clone()
				applied, ok := step(cand, i, target)
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

// A shrinkStep applies its i-th simplification to c. ok is false when
// there is no i-th one; applied is false when it does not apply to c (the
// search moves on to i+1).
type shrinkStep func(c *Cluster, i int, target string) (applied, ok bool)

var shrinkSteps = []shrinkStep{
	dropNode, dropBound, dropObject, simplifyPending, simplifyBound, simplifyNode,
}

func dropNode(c *Cluster, i int, target string) (bool, bool) {
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

func dropBound(c *Cluster, i int, _ string) (bool, bool) {
	if i >= len(c.Pods) {
		return false, false
	}
	c.Pods = slices.Delete(c.Pods, i, i+1)
	return true, true
}

// dropObject removes the i-th of the cluster's other objects, in the
// order namespaces, volumes, claims, classes, CSI nodes, services,
// ReplicaSets.
func dropObject(c *Cluster, i int, _ string) (bool, bool) {
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

func simplifyPending(c *Cluster, i int, _ string) (bool, bool) {
	return simplifyPod(c.Pending[0], i)
}

func simplifyBound(c *Cluster, i int, _ string) (bool, bool) {
	for _, p := range c.Pods {
		n := len(podSimplifications(p))
		if i < n {
			return simplifyPod(p, i)
		}
		i -= n
	}
	return false, false
}

func simplifyNode(c *Cluster, i int, _ string) (bool, bool) {
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
