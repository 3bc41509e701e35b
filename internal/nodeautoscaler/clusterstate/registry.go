package clusterstate

import (
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/nodeautoscaler/backoff"
)

// Config configures a Registry.
type Config struct {
	// Readiness decides node buckets.
	Readiness ReadinessRules
	// MaxNodeProvisionTime is --max-node-provision-time.
	MaxNodeProvisionTime time.Duration
	// Backoff is the backoff policy.
	Backoff backoff.Backoff
	// NoFullScaleDown is --backoff-no-full-scale-down: backed-off groups keep
	// one sentinel request and recover when it is fulfilled.
	NoFullScaleDown bool
	// APIErrorBackoff, when set, backs off groups whose IncreaseSize call
	// failed. A failed call leaves no sentinel whose arrival could end an
	// infinite backoff, so no-full-scale-down mode uses a timed policy here.
	APIErrorBackoff backoff.Backoff
}

// Input is what Update needs from the cloud and the cluster.
type Input struct {
	// Groups are the provider's node groups.
	Groups []cloudprovider.NodeGroup
	// Instances are each group's instances, by group id.
	Instances map[string][]cloudprovider.Instance
	// Nodes are all nodes of the cluster.
	Nodes []*corev1.Node
}

// Registry is the per-group state kept between loops.
type Registry struct {
	cfg               Config
	groups            []GroupState
	index             map[string]int
	nodeGroup         map[string]string
	requests          map[string]*ScaleUpRequest
	incorrect         map[string]incorrectSize
	unregisteredSince map[string]time.Time
	seenErrors        map[string]bool
	backedOff         map[string]bool
	nodesByPID        map[string]*corev1.Node
}

// New returns an empty registry.
func New(cfg Config) *Registry {
	return &Registry{cfg: cfg, index: map[string]int{}, nodeGroup: map[string]string{},
		requests: map[string]*ScaleUpRequest{}, incorrect: map[string]incorrectSize{},
		unregisteredSince: map[string]time.Time{}, seenErrors: map[string]bool{}, backedOff: map[string]bool{}}
}

// Update recomputes every group's state at now and returns what changed.
func (r *Registry) Update(in Input, now time.Time) []Event {
	r.readiness(in, now)
	r.forgetMissing()
	var events []Event
	events = append(events, r.handleInstanceErrors(now)...)
	events = append(events, r.updateRequests(now)...)
	events = append(events, r.updateBackoffs(now)...)
	r.collectLongUnregistered(now)
	r.updateUpcoming()
	r.updateIncorrectSizes(now)
	return events
}

// Groups returns every group's state in provider order.
func (r *Registry) Groups() []GroupState { return slices.Clone(r.groups) }

// Group returns one group's state.
func (r *Registry) Group(id string) (GroupState, bool) {
	i, ok := r.index[id]
	if !ok {
		return GroupState{}, false
	}
	return r.groups[i], true
}

// NodeGroupOf returns the group id of a node by its provider id.
func (r *Registry) NodeGroupOf(n *corev1.Node) (string, bool) {
	g, ok := r.nodeGroup[n.Spec.ProviderID]
	return g, ok
}

// Requests returns the open scale-up requests by group.
func (r *Registry) Requests() map[string]ScaleUpRequest {
	out := make(map[string]ScaleUpRequest, len(r.requests))
	for g, req := range r.requests {
		out[g] = *req
	}
	return out
}

// readiness buckets the nodes and instances of every group.
func (r *Registry) readiness(in Input, now time.Time) {
	// The maps are cleared, not replaced: a loop reuses their memory.
	r.groups = r.groups[:0]
	clear(r.index)
	clear(r.nodeGroup)
	for _, g := range in.Groups {
		for _, inst := range in.Instances[g.ID] {
			r.nodeGroup[inst.ProviderID] = g.ID
		}
	}
	if r.nodesByPID == nil {
		r.nodesByPID = make(map[string]*corev1.Node, len(in.Nodes))
	}
	nodes := r.nodesByPID
	clear(nodes)
	for _, n := range in.Nodes {
		nodes[n.Spec.ProviderID] = n
	}
	for _, g := range in.Groups {
		st := GroupState{Group: g}
		for _, inst := range in.Instances[g.ID] {
			if inst.Error != nil && inst.State == cloudprovider.InstanceCreating {
				st.ErrorInstances = append(st.ErrorInstances, inst)
			}
			r.bucketInstance(&st, inst, nodes[inst.ProviderID], now)
		}
		r.index[g.ID] = len(r.groups)
		r.groups = append(r.groups, st)
	}
	for id := range r.unregisteredSince {
		if _, ok := r.nodeGroup[id]; !ok {
			delete(r.unregisteredSince, id)
		}
	}
}

func (r *Registry) bucketInstance(st *GroupState, inst cloudprovider.Instance, n *corev1.Node, now time.Time) {
	if n != nil {
		delete(r.unregisteredSince, inst.ProviderID)
		switch readinessFor(&st.Group, r.cfg.Readiness).CountBucket(n, true, now) {
		case Ready:
			st.Readiness.Ready++
		case Unready:
			st.Readiness.Unready++
		case NotStarted:
			st.Readiness.NotStarted++
		case LongNotStarted:
			st.Readiness.LongNotStarted++
		case Deleted:
			st.Readiness.Deleted++
		}
		return
	}
	if inst.State == cloudprovider.InstanceDeleting {
		return
	}
	if _, ok := r.unregisteredSince[inst.ProviderID]; !ok {
		r.unregisteredSince[inst.ProviderID] = now
	}
	st.Readiness.Unregistered++
	st.unregistered = append(st.unregistered, inst)
}

// RegisterScaleUp records that group was asked for delta more nodes.
func (r *Registry) RegisterScaleUp(group string, delta int, now time.Time) {
	req, ok := r.requests[group]
	if !ok {
		req = &ScaleUpRequest{Time: now}
		r.requests[group] = req
	}
	req.Increase += delta
	provision := r.cfg.MaxNodeProvisionTime
	if i, ok := r.index[group]; ok {
		provision = provisionTime(&r.groups[i].Group, provision)
	}
	req.Deadline = now.Add(provision)
	if i, ok := r.index[group]; ok {
		r.groups[i].Upcoming += delta
		r.groups[i].ScaleUpInProgress = true
		r.groups[i].Group.TargetSize += delta
	}
}

// RegisterFailedScaleUp backs group off after a failed IncreaseSize call.
func (r *Registry) RegisterFailedScaleUp(group string, reason backoff.Reason, now time.Time) Event {
	delete(r.requests, group)
	b := r.cfg.Backoff
	if r.cfg.APIErrorBackoff != nil {
		b = r.cfg.APIErrorBackoff
	}
	st := b.Backoff(group, reason, now)
	if i, ok := r.index[group]; ok {
		r.groups[i].Backoff, r.groups[i].Upcoming, r.groups[i].ScaleUpInProgress = st, 0, false
	}
	r.backedOff[group] = st.BackedOff
	return Event{Type: BackoffStarted, Group: group, Reason: reason, Message: reason.Message}
}

// IsSafeToScaleUp reports whether group may be scaled up at now, and why not.
func (r *Registry) IsSafeToScaleUp(group string, now time.Time) (bool, string) {
	if st := r.backoffStatus(group, now); st.BackedOff {
		return false, fmt.Sprintf("in backoff after failed scale-up (%s)", st.Reason.Code)
	}
	return true, ""
}

// forgetMissing drops requests and size tracking of groups that
// disappeared.
func (r *Registry) forgetMissing() {
	for g := range r.requests {
		if _, ok := r.index[g]; !ok {
			delete(r.requests, g)
		}
	}
	for g := range r.incorrect {
		if _, ok := r.index[g]; !ok {
			delete(r.incorrect, g)
		}
	}
}

// backoffStatus combines the main and the API-error backoff.
func (r *Registry) backoffStatus(group string, now time.Time) backoff.Status {
	st := r.cfg.Backoff.Status(group, now)
	if r.cfg.APIErrorBackoff != nil && !st.BackedOff {
		if api := r.cfg.APIErrorBackoff.Status(group, now); api.BackedOff {
			return api
		}
	}
	return st
}

// provisionTime is the group's own max node provision time, or global.
// readinessFor returns the readiness rules of a group's nodes: the global
// ones with the group's own max node startup time, when it has one.
func readinessFor(g *cloudprovider.NodeGroup, global ReadinessRules) ReadinessRules {
	if g.Options.MaxNodeStartupTime != nil {
		global.MaxNodeStartupTime = *g.Options.MaxNodeStartupTime
	}
	return global
}

func provisionTime(g *cloudprovider.NodeGroup, global time.Duration) time.Duration {
	if g.Options.MaxNodeProvisionTime != nil {
		return *g.Options.MaxNodeProvisionTime
	}
	return global
}
