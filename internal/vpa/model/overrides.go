package model

import (
	"maps"
	"time"
)

// Overrides are one container's per-VPA aggregation settings (upstream's
// PerVPAConfig container policy fields). A zero field keeps the
// recommender's setting.
type Overrides struct {
	// OOMBumpUpRatio replaces Config.OOMBumpUpRatio when > 0.
	OOMBumpUpRatio float64
	// OOMMinBumpUpBytes replaces Config.OOMMinBumpUpBytes when
	// HasOOMMinBumpUp is set (0 is a valid value).
	OOMMinBumpUpBytes float64
	// HasOOMMinBumpUp marks OOMMinBumpUpBytes as set.
	HasOOMMinBumpUp bool
	// MemoryAggregationInterval replaces Config.MemoryAggregationInterval
	// when > 0.
	MemoryAggregationInterval time.Duration
	// MemoryAggregationIntervalCount replaces
	// Config.MemoryAggregationIntervalCount when > 0.
	MemoryAggregationIntervalCount int64
}

// WildcardContainer is the container policy name that applies to every
// container without a policy of its own.
const WildcardContainer = "*"

// apply returns cfg with o's set fields replacing cfg's.
func (o Overrides) apply(cfg Config) Config {
	if o.OOMBumpUpRatio > 0 {
		cfg.OOMBumpUpRatio = o.OOMBumpUpRatio
	}
	if o.HasOOMMinBumpUp {
		cfg.OOMMinBumpUpBytes = o.OOMMinBumpUpBytes
	}
	if o.MemoryAggregationInterval > 0 {
		cfg.MemoryAggregationInterval = o.MemoryAggregationInterval
	}
	if o.MemoryAggregationIntervalCount > 0 {
		cfg.MemoryAggregationIntervalCount = o.MemoryAggregationIntervalCount
	}
	return cfg
}

// SetVPAOverrides sets the VPA's per-container aggregation settings, keyed
// by container name (WildcardContainer for the rest); nil clears them. The
// aggregates the VPA links follow them at once: their OOM bump, memory
// peak window and history length (for garbage collection). An aggregate
// linked by several VPAs follows the first linked VPA that has overrides
// for its container.
func (c *Cluster) SetVPAOverrides(id VPAID, overrides map[string]Overrides) {
	v, ok := c.vpas[id]
	if !ok || maps.Equal(v.overrides, overrides) {
		return
	}
	v.overrides = maps.Clone(overrides)
	for _, e := range v.aggs {
		c.refreshConfig(e)
	}
}

// overridesFor returns the VPA's overrides for a container.
func (v *vpaState) overridesFor(container string) (Overrides, bool) {
	if o, ok := v.overrides[container]; ok {
		return o, true
	}
	o, ok := v.overrides[WildcardContainer]
	return o, ok
}

// refreshConfig gives e, and the containers feeding it, the configuration
// its VPAs' overrides call for.
func (c *Cluster) refreshConfig(e *aggregateEntry) {
	cfg := c.cfg
	for _, v := range e.vpas {
		if o, ok := v.overridesFor(e.key.Container); ok {
			with := o.apply(*c.cfg)
			cfg = &with
			break
		}
	}
	if e.cfg != nil && *e.cfg == *cfg {
		return
	}
	e.cfg = cfg
	for _, cs := range e.containers {
		cs.cfg = cfg
	}
}
