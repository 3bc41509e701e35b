package model

import (
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/labels"
)

// aggregateEntry is an aggregate with the live containers feeding it and
// the VPAs linked to it.
type aggregateEntry struct {
	key AggregateKey
	// cfg is the cluster's configuration with the linked VPA's overrides.
	cfg        *Config
	state      *AggregateContainerState
	containers []*ContainerState
	vpas       []*vpaState
}

// podState is one pod: its label key, whether it has finished, and its
// containers by name.
type podState struct {
	labels     string
	terminal   bool
	containers map[string]*ContainerState
}

// vpaState is one VPA: its selector, the aggregates it links and the state
// loaded from its checkpoints per container name.
type vpaState struct {
	id           VPAID
	selector     labels.Selector
	selectorKey  string
	targetExists bool
	aggs         []*aggregateEntry
	checkpoints  map[string]*AggregateContainerState
	overrides    map[string]Overrides
}

// Cluster is the recommender's model of pods, aggregates and VPAs.
type Cluster struct {
	cfg        *Config
	pods       map[PodID]*podState
	aggregates map[AggregateKey]*aggregateEntry
	aggsByNS   map[string][]*aggregateEntry
	vpas       map[VPAID]*vpaState
	vpasByNS   map[string][]*vpaState
}

// NewCluster returns an empty model using cfg (defaulted and validated).
func NewCluster(cfg *Config) *Cluster {
	return &Cluster{
		cfg:        cfg,
		pods:       map[PodID]*podState{},
		aggregates: map[AggregateKey]*aggregateEntry{},
		aggsByNS:   map[string][]*aggregateEntry{},
		vpas:       map[VPAID]*vpaState{},
		vpasByNS:   map[string][]*vpaState{},
	}
}

// Config returns the model's configuration.
func (c *Cluster) Config() *Config { return c.cfg }

// SetPod adds or updates a pod with its labels and (regular, non-init)
// container names; terminal marks a Succeeded or Failed pod. Containers
// get their aggregate at once. A label change moves the pod's containers
// to the aggregates of the new label set.
func (c *Cluster) SetPod(id PodID, podLabels map[string]string, containers []string, terminal bool, now time.Time) {
	p, ok := c.pods[id]
	if ok && !labelsMatchKey(podLabels, p.labels) {
		c.DeletePod(id)
		ok = false
	}
	if !ok {
		p = &podState{labels: LabelsKey(podLabels), containers: make(map[string]*ContainerState, len(containers))}
		c.pods[id] = p
	}
	key := p.labels
	p.terminal = terminal
	for _, name := range containers {
		if _, ok := p.containers[name]; ok {
			continue
		}
		e := c.aggregateFor(AggregateKey{Namespace: id.Namespace, Container: name, Labels: key}, now)
		cs := newContainerState(e.cfg, e.state, p)
		e.containers = append(e.containers, cs)
		p.containers[name] = cs
	}
}

// DeletePod forgets a pod; its aggregates keep their history.
func (c *Cluster) DeletePod(id PodID) {
	p, ok := c.pods[id]
	if !ok {
		return
	}
	for name, cs := range p.containers {
		if e, ok := c.aggregates[AggregateKey{Namespace: id.Namespace, Container: name, Labels: p.labels}]; ok {
			e.containers = slices.DeleteFunc(e.containers, func(x *ContainerState) bool { return x == cs })
		}
	}
	delete(c.pods, id)
}

// PodIDs returns the known pods in no particular order.
func (c *Cluster) PodIDs() []PodID {
	out := make([]PodID, 0, len(c.pods))
	for id := range c.pods {
		out = append(out, id)
	}
	return out
}

// Container returns the state of a pod's container, or nil when the pod or
// container is unknown (for example an init container).
func (c *Cluster) Container(id PodID, name string) *ContainerState {
	p, ok := c.pods[id]
	if !ok {
		return nil
	}
	return p.containers[name]
}

// NumAggregates returns the number of aggregates.
func (c *Cluster) NumAggregates() int { return len(c.aggregates) }

// Aggregate returns the aggregate of key, or nil.
func (c *Cluster) Aggregate(key AggregateKey) *AggregateContainerState {
	if e, ok := c.aggregates[key]; ok {
		return e.state
	}
	return nil
}

// aggregateFor returns the entry of key, creating and linking it if needed.
func (c *Cluster) aggregateFor(key AggregateKey, now time.Time) *aggregateEntry {
	if e, ok := c.aggregates[key]; ok {
		return e
	}
	e := &aggregateEntry{key: key, cfg: c.cfg, state: NewAggregateContainerState(c.cfg, now)}
	c.aggregates[key] = e
	c.aggsByNS[key.Namespace] = append(c.aggsByNS[key.Namespace], e)
	if vs := c.vpasByNS[key.Namespace]; len(vs) > 0 {
		set := labelsFromKey(key.Labels)
		for _, v := range vs {
			if v.selector != nil && v.selector.Matches(set) {
				link(v, e)
			}
		}
		c.refreshConfig(e)
	}
	return e
}

// link connects a VPA and an aggregate both ways.
func link(v *vpaState, e *aggregateEntry) {
	v.aggs = append(v.aggs, e)
	e.vpas = append(e.vpas, v)
}
