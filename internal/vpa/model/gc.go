package model

import (
	"slices"
	"time"
)

// GarbageCollect deletes stale aggregates and returns how many it removed.
// An aggregate goes when it is empty and no live pod or existing VPA target
// keeps it (not contributive), when its last sample is at least the
// history length (interval × count) old, or when it is empty and was
// created at least the history length ago. An expired aggregate that live
// containers still feed is replaced by an empty one.
func (c *Cluster) GarbageCollect(now time.Time) int {
	removed := 0
	for key, e := range c.aggregates {
		if !c.stale(e, now) {
			continue
		}
		removed++
		if len(e.containers) > 0 {
			c.resetAggregate(e, now)
			continue
		}
		c.removeAggregate(key, e)
	}
	return removed
}

// stale reports whether e should be collected at now.
func (c *Cluster) stale(e *aggregateEntry, now time.Time) bool {
	history := e.cfg.HistoryLength()
	s := e.state
	if s.IsEmpty() && !c.contributive(e) {
		return true
	}
	if !s.LastSampleStart.IsZero() && now.Sub(s.LastSampleStart) >= history {
		return true
	}
	return s.IsEmpty() && now.Sub(s.CreationTime) >= history
}

// contributive reports whether a live pod feeds e or a VPA whose target
// exists links it.
func (c *Cluster) contributive(e *aggregateEntry) bool {
	if len(e.containers) > 0 && anyLivePod(e) {
		return true
	}
	for _, v := range e.vpas {
		if v.targetExists {
			return true
		}
	}
	return false
}

// anyLivePod reports whether a pod that has not finished feeds e.
func anyLivePod(e *aggregateEntry) bool {
	for _, cs := range e.containers {
		if cs.pod != nil && !cs.pod.terminal {
			return true
		}
	}
	return false
}

// resetAggregate gives e's live containers a fresh, empty aggregate.
func (c *Cluster) resetAggregate(e *aggregateEntry, now time.Time) {
	e.state = NewAggregateContainerState(c.cfg, now)
	for _, cs := range e.containers {
		cs.agg = e.state
	}
}

// removeAggregate deletes e and its links.
func (c *Cluster) removeAggregate(key AggregateKey, e *aggregateEntry) {
	delete(c.aggregates, key)
	c.aggsByNS[key.Namespace] = slices.DeleteFunc(c.aggsByNS[key.Namespace], func(x *aggregateEntry) bool { return x == e })
	if len(c.aggsByNS[key.Namespace]) == 0 {
		delete(c.aggsByNS, key.Namespace)
	}
	for _, v := range e.vpas {
		v.aggs = slices.DeleteFunc(v.aggs, func(x *aggregateEntry) bool { return x == e })
	}
}
