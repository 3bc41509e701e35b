package mismatch

import (
	"cmp"
	"errors"
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/cloudprovider/nodetemplate"
	"github.com/kscale/kscale/internal/nodeautoscaler/template"
)

// DefaultTimeout is how long what a node taught outlives the last node
// that showed it, unless configured.
const DefaultTimeout = 3 * time.Hour

// Config configures a Guard.
type Config struct {
	// Timeout is how long learnt differences and blocks are kept after
	// the last node that showed them is gone; then one scale-up may probe
	// the group again. Default DefaultTimeout.
	Timeout time.Duration
	// Ignore reports the taints templates never carry (startup, status
	// and deletion taints); real nodes' copies of them are no difference.
	Ignore nodetemplate.IgnoreTaint
}

// Group is one node group as the guard sees it in one loop.
type Group struct {
	// ID is the node group id.
	ID string
	// Fingerprint identifies the provider's description of the group's
	// template; when it changes, everything learnt is dropped.
	Fingerprint string
	// Zones are the group's zones; a node in any of them matches the
	// template's zone label.
	Zones []string
	// Template is the template as built from the provider.
	Template *template.Template
	// Nodes are the group's Ready nodes that are neither cordoned nor
	// being deleted.
	Nodes []*corev1.Node
}

// Input is one loop's observation.
type Input struct {
	// Groups are all node groups.
	Groups []Group
	// PodsOn returns the pods bound to a node.
	PodsOn func(node string) []*corev1.Pod
	// Pending are the unschedulable pods.
	Pending []*corev1.Pod
	// Now is the loop time.
	Now time.Time
}

// Guard remembers, per node group, what its real nodes taught and which
// pods it must not be scaled for.
type Guard struct {
	cfg    Config
	groups map[string]*state
}

// state is one group's memory.
type state struct {
	fingerprint string
	since       time.Time
	learnt      *evidence
	confirmed   time.Time
	triggers    []trigger
	blocked     map[string]*Block
}

// trigger is a scale-up and the pods it was for.
type trigger struct {
	at   time.Time
	pods []*corev1.Pod
}

// Block keeps a group from being scaled up for one owner's pods.
type Block struct {
	// Owner is the pods' owner key (see OwnerKey).
	Owner string
	// Node is the real node the pods did not fit.
	Node string
	// Reason is why they did not fit it.
	Reason string
	// confirmed is when a node last showed it.
	confirmed time.Time
}

// New returns a guard that has learnt nothing.
func New(cfg Config) (*Guard, error) {
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Timeout < 0 {
		return nil, errors.New("configuring the template mismatch guard: timeout must not be negative")
	}
	return &Guard{cfg: cfg, groups: map[string]*state{}}, nil
}

// ScaledUp records that the group was scaled up at now for pods, so the
// group's next new node is checked against them.
func (g *Guard) ScaledUp(group string, pods []*corev1.Pod, now time.Time) {
	if st := g.groups[group]; st != nil && len(pods) > 0 {
		st.triggers = append(st.triggers, trigger{at: now, pods: slices.Clone(pods)})
	}
}

// Template returns the group's template with what its real nodes taught,
// or t itself when they taught nothing.
func (g *Guard) Template(group string, t *template.Template) *template.Template {
	st := g.groups[group]
	if st == nil || st.learnt == nil || t == nil {
		return t
	}
	return st.learnt.apply(t)
}

// Blocked returns the group's blocks by owner key; nil when none.
func (g *Guard) Blocked(group string) map[string]*Block {
	if st := g.groups[group]; st != nil && len(st.blocked) > 0 {
		return st.blocked
	}
	return nil
}

// Status is a group's mismatch as the status ConfigMap and metrics show it.
type Status struct {
	// Node is the real node that showed it.
	Node string
	// Differences are what the node showed.
	Differences []Difference
	// Blocks are the owners the group is not scaled up for.
	Blocks []Block
}

// Status returns the group's mismatch, or false when its nodes match.
func (g *Guard) Status(group string) (Status, bool) {
	st := g.groups[group]
	if st == nil || (st.learnt == nil && len(st.blocked) == 0) {
		return Status{}, false
	}
	var s Status
	if st.learnt != nil {
		s.Node, s.Differences = st.learnt.node.Name, st.learnt.diffs
	}
	for _, k := range slices.Sorted(maps.Keys(st.blocked)) {
		s.Blocks = append(s.Blocks, *st.blocked[k])
	}
	return s, true
}

// newest returns the most recently created of nodes that registered at
// or after since, or nil.
func newest(nodes []*corev1.Node, since time.Time) *corev1.Node {
	var best *corev1.Node
	for _, n := range nodes {
		if n.CreationTimestamp.Time.Before(since) {
			continue
		}
		if best == nil || cmp.Or(n.CreationTimestamp.Compare(best.CreationTimestamp.Time), cmp.Compare(n.Name, best.Name)) > 0 {
			best = n
		}
	}
	return best
}
