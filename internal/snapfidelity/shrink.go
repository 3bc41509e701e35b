package snapfidelity

import (
	"maps"
	"slices"
)

// Shrink reduces c to a smaller cluster for which differs still holds (a
// difference remains), as the scheduler fidelity test shrinks: it tries
// every simplification in turn, keeps those that keep the difference,
// and stops when none does. differs runs the whole comparison, so each
// attempt costs one live loop and one simulation.
func Shrink(c *Cluster, differs func(*Cluster) bool) *Cluster {
	best := c.clone()
	for progress := true; progress; {
		progress = false
		for _, step := range shrinkSteps {
			for i := 0; ; {
				cand := best.clone()
				applied, ok := step(cand, i)
				if !ok {
					break
				}
				if applied && differs(cand) {
					best, progress = cand, true
					continue // the same index now names the next element
				}
				i++
			}
		}
	}
	return best
}

func (c *Cluster) clone() *Cluster {
	out := &Cluster{Seed: c.Seed, Settings: maps.Clone(c.Settings), Groups: slices.Clone(c.Groups), Nodes: slices.Clone(c.Nodes),
		Budgets: slices.Clone(c.Budgets)}
	for _, w := range c.Workloads {
		w.Bound, w.ZonesOfPending = slices.Clone(w.Bound), slices.Clone(w.ZonesOfPending)
		out.Workloads = append(out.Workloads, w)
	}
	return out
}

// A shrinkStep applies its i-th simplification to c; ok is false when
// there is no i-th one, applied false when it does not apply.
type shrinkStep func(c *Cluster, i int) (applied, ok bool)

var shrinkSteps = []shrinkStep{dropWorkload, dropNode, dropGroup, dropBound, dropPending, dropPDB, dropBudget, dropClaims, dropSetting}

// dropClaims takes the claims off the i-th workload's pods.
func dropClaims(c *Cluster, i int) (bool, bool) {
	if i >= len(c.Workloads) {
		return false, false
	}
	if c.Workloads[i].Claims == "" {
		return false, true
	}
	c.Workloads[i].Claims, c.Workloads[i].ZonesOfPending = "", nil
	return true, true
}

func dropWorkload(c *Cluster, i int) (bool, bool) {
	if i >= len(c.Workloads) {
		return false, false
	}
	c.Workloads = slices.Delete(c.Workloads, i, i+1)
	return true, true
}

func dropNode(c *Cluster, i int) (bool, bool) {
	if i >= len(c.Nodes) {
		return false, false
	}
	c.removeNodes(c.Nodes[i].Name)
	return true, true
}

// removeNodes drops the named nodes and the pods bound to them.
func (c *Cluster) removeNodes(names ...string) {
	c.Nodes = slices.DeleteFunc(c.Nodes, func(n Node) bool { return slices.Contains(names, n.Name) })
	for k := range c.Workloads {
		w := &c.Workloads[k]
		w.Bound = slices.DeleteFunc(w.Bound, func(n string) bool { return slices.Contains(names, n) })
		w.Finished = min(w.Finished, len(w.Bound))
	}
}

func dropGroup(c *Cluster, i int) (bool, bool) {
	if i >= len(c.Groups) {
		return false, false
	}
	if len(c.Groups) == 1 {
		return false, true
	}
	var names []string
	for _, n := range c.Nodes {
		if n.Group == c.Groups[i].Name {
			names = append(names, n.Name)
		}
	}
	c.removeNodes(names...)
	c.Groups = slices.Delete(c.Groups, i, i+1)
	return true, true
}

func dropBound(c *Cluster, i int) (bool, bool) {
	for k := range c.Workloads {
		if i < len(c.Workloads[k].Bound) {
			w := &c.Workloads[k]
			if w.Kind == KindDaemonSet {
				// A DaemonSet runs on every Ready node: only dropping
				// the node drops its pod.
				return false, true
			}
			w.Bound = slices.Delete(w.Bound, i, i+1)
			w.Finished = min(w.Finished, len(w.Bound))
			w.NotReady = min(w.NotReady, len(w.Bound)-w.Finished)
			return true, true
		}
		i -= len(c.Workloads[k].Bound)
	}
	return false, false
}

func dropPending(c *Cluster, i int) (bool, bool) {
	if i >= len(c.Workloads) {
		return false, false
	}
	if c.Workloads[i].Pending == 0 {
		return false, true
	}
	c.Workloads[i].Pending--
	return true, true
}

func dropPDB(c *Cluster, i int) (bool, bool) {
	if i >= len(c.Workloads) {
		return false, false
	}
	if c.Workloads[i].MaxUnavailable == nil {
		return false, true
	}
	c.Workloads[i].MaxUnavailable = nil
	return true, true
}

func dropSetting(c *Cluster, i int) (bool, bool) {
	keys := slices.Sorted(maps.Keys(c.Settings))
	if i >= len(keys) {
		return false, false
	}
	delete(c.Settings, keys[i])
	return true, true
}
