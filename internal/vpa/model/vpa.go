package model

import (
	"slices"

	"k8s.io/apimachinery/pkg/labels"
)

// SetVPA adds or updates a VPA. selector nil matches no pods (an
// unresolvable or unsupported target); targetExists says whether its target
// controller exists, which keeps finished pods' aggregates alive. A
// changed selector relinks the VPA's aggregates.
func (c *Cluster) SetVPA(id VPAID, selector labels.Selector, targetExists bool) {
	v, ok := c.vpas[id]
	if !ok {
		v = &vpaState{id: id}
		c.vpas[id] = v
		c.vpasByNS[id.Namespace] = append(c.vpasByNS[id.Namespace], v)
	}
	v.targetExists = targetExists
	key := "\x00none"
	if selector != nil {
		key = selector.String()
	}
	if ok && key == v.selectorKey {
		return
	}
	c.unlinkVPA(v)
	v.selector, v.selectorKey = selector, key
	if selector == nil {
		return
	}
	for _, e := range c.aggsByNS[id.Namespace] {
		if selector.Matches(labelsFromKey(e.key.Labels)) {
			link(v, e)
			c.refreshConfig(e)
		}
	}
}

// DeleteVPA forgets a VPA and the state loaded from its checkpoints.
func (c *Cluster) DeleteVPA(id VPAID) {
	v, ok := c.vpas[id]
	if !ok {
		return
	}
	c.unlinkVPA(v)
	delete(c.vpas, id)
	c.vpasByNS[id.Namespace] = slices.DeleteFunc(c.vpasByNS[id.Namespace], func(x *vpaState) bool { return x == v })
	if len(c.vpasByNS[id.Namespace]) == 0 {
		delete(c.vpasByNS, id.Namespace)
	}
}

// unlinkVPA removes all links of v.
func (c *Cluster) unlinkVPA(v *vpaState) {
	for _, e := range v.aggs {
		e.vpas = slices.DeleteFunc(e.vpas, func(x *vpaState) bool { return x == v })
		c.refreshConfig(e)
	}
	v.aggs = nil
}

// VPAIDs returns the known VPAs in no particular order.
func (c *Cluster) VPAIDs() []VPAID {
	out := make([]VPAID, 0, len(c.vpas))
	for id := range c.vpas {
		out = append(out, id)
	}
	return out
}

// HasVPA reports whether the VPA is known.
func (c *Cluster) HasVPA(id VPAID) bool {
	_, ok := c.vpas[id]
	return ok
}

// SetCheckpointState records history loaded from the VPA's checkpoint for
// one container name; it is merged into that container's recommendation.
func (c *Cluster) SetCheckpointState(id VPAID, container string, state *AggregateContainerState) {
	v, ok := c.vpas[id]
	if !ok {
		return
	}
	if v.checkpoints == nil {
		v.checkpoints = map[string]*AggregateContainerState{}
	}
	v.checkpoints[container] = state
}

// MatchesLivePods reports whether the VPA links an aggregate fed by a live
// (not finished) pod container.
func (c *Cluster) MatchesLivePods(id VPAID) bool {
	v, ok := c.vpas[id]
	if !ok {
		return false
	}
	for _, e := range v.aggs {
		if len(e.containers) > 0 {
			return true
		}
	}
	return false
}

// ContainerStates returns the VPA's history per container name: its linked
// aggregates merged per name, plus the state loaded from its checkpoints.
// A name with exactly one source returns that source itself (read-only for
// the caller); merged names are fresh copies.
func (c *Cluster) ContainerStates(id VPAID) map[string]*AggregateContainerState {
	v, ok := c.vpas[id]
	if !ok {
		return nil
	}
	out := make(map[string]*AggregateContainerState, len(v.aggs)+len(v.checkpoints))
	owned := map[string]bool{}
	add := func(name string, s *AggregateContainerState) {
		cur, ok := out[name]
		switch {
		case !ok:
			out[name] = s
		case owned[name]:
			cur.Merge(s)
		default:
			m := cur.Clone()
			m.Merge(s)
			out[name] = m
			owned[name] = true
		}
	}
	for _, e := range v.aggs {
		add(e.key.Container, e.state)
	}
	for name, s := range v.checkpoints {
		add(name, s)
	}
	return out
}
