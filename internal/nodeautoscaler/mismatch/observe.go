package mismatch

import (
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// TransitionType names a change of a group's mismatch.
type TransitionType string

// Transition types.
const (
	// Detected means a real node showed differences (new or changed ones).
	Detected TransitionType = "TemplateMismatch"
	// Cleared means the differences or a block went away: a new node
	// matches, the pods fit again, the template changed, or the timeout
	// passed without a node showing them.
	Cleared TransitionType = "TemplateMismatchCleared"
	// BlockedPods means the group is no longer scaled up for an owner's
	// pods that did not fit its new node.
	BlockedPods TransitionType = "TemplateMismatchBlocked"
)

// Transition is one change the loop reports.
type Transition struct {
	// Type says what changed.
	Type TransitionType
	// Group is the node group.
	Group string
	// Node is the real node involved, if any.
	Node string
	// Owner is the blocked owner key, for BlockedPods and its clearing.
	Owner string
	// Message describes the change.
	Message string
}

// Observe updates what every group's real nodes teach and returns the
// changes. Groups that are gone are forgotten.
func (g *Guard) Observe(in Input) []Transition {
	var out []Transition
	present := make(map[string]bool, len(in.Groups))
	pending := make(map[types.UID]*corev1.Pod, len(in.Pending))
	for _, p := range in.Pending {
		pending[p.UID] = p
	}
	for _, grp := range in.Groups {
		present[grp.ID] = true
		out = append(out, g.observeGroup(grp, in, pending)...)
	}
	for id := range g.groups {
		if !present[id] {
			delete(g.groups, id)
		}
	}
	return out
}

func (g *Guard) observeGroup(grp Group, in Input, pending map[types.UID]*corev1.Pod) []Transition {
	st := g.groups[grp.ID]
	var out []Transition
	if st == nil || st.fingerprint != grp.Fingerprint {
		if st != nil && (st.learnt != nil || len(st.blocked) > 0) {
			out = append(out, Transition{Type: Cleared, Group: grp.ID, Message: "the node group's template changed"})
		}
		st = &state{fingerprint: grp.Fingerprint, since: in.Now, blocked: map[string]*Block{}}
		g.groups[grp.ID] = st
	}
	if grp.Template == nil {
		return out
	}
	node := newest(grp.Nodes, st.since)
	if node == nil {
		return append(out, g.expire(grp.ID, st, in.Now)...)
	}
	pods := stayingPods(in.PodsOn(node.Name))
	out = append(out, st.learn(grp, node, pods, g.cfg, in.Now)...)
	out = append(out, st.judgeTriggers(grp, node, pods, pending, in.Now)...)
	return append(out, st.recheckBlocks(grp.ID, node, pods, in.Pending, in.Now)...)
}

// learn compares the newest node with the provider's template.
func (st *state) learn(grp Group, node *corev1.Node, pods []*corev1.Pod, cfg Config, now time.Time) []Transition {
	diffs := Compare(grp.Template, grp.Zones, node, pods, cfg.Ignore)
	if len(diffs) == 0 {
		if st.learnt == nil {
			return nil
		}
		st.learnt = nil
		return []Transition{{Type: Cleared, Group: grp.ID, Node: node.Name, Message: "node " + node.Name + " matches the template"}}
	}
	st.confirmed = now
	changed := st.learnt == nil || !slices.Equal(st.learnt.diffs, diffs)
	st.learnt = &evidence{node: node, pods: pods, diffs: diffs}
	if !changed {
		return nil
	}
	return []Transition{{Type: Detected, Group: grp.ID, Node: node.Name,
		Message: "node " + node.Name + " differs from the template: " + Describe(diffs)}}
}

// judgeTriggers checks the pods of scale-ups made before node registered
// against it: a pod that is still pending, fits the learnt template and
// does not fit the real node blocks the group for its owner.
func (st *state) judgeTriggers(grp Group, node *corev1.Node, pods []*corev1.Pod, pending map[types.UID]*corev1.Pod, now time.Time) []Transition {
	var out []Transition
	learnt := grp.Template
	if st.learnt != nil {
		learnt = st.learnt.apply(grp.Template)
	}
	kept := st.triggers[:0]
	for _, t := range st.triggers {
		if node.CreationTimestamp.Time.Before(t.at) {
			kept = append(kept, t) // the node this scale-up asked for is not there yet
			continue
		}
		for _, p := range t.pods {
			cur, ok := pending[p.UID]
			owner := OwnerKey(p)
			if !ok || st.blocked[owner] != nil || fitsAlone(cur, learnt.Node, learnt.DaemonSetPods) != nil {
				continue
			}
			if err := fitsAlone(cur, node, pods); err != nil {
				st.blocked[owner] = &Block{Owner: owner, Node: node.Name, Reason: err.Filter + ": " + err.Reason, confirmed: now}
				out = append(out, Transition{Type: BlockedPods, Group: grp.ID, Node: node.Name, Owner: owner,
					Message: "pods of " + owner + " fit the template but not node " + node.Name + ": " + err.Filter + ": " + err.Reason})
			}
		}
	}
	st.triggers = kept
	return out
}

// recheckBlocks lifts a block once a pending pod of its owner fits the
// newest node, and drops blocks of owners with no pending pod.
func (st *state) recheckBlocks(group string, node *corev1.Node, pods, pending []*corev1.Pod, now time.Time) []Transition {
	var out []Transition
	for _, owner := range slices.Sorted(maps.Keys(st.blocked)) {
		b := st.blocked[owner]
		i := slices.IndexFunc(pending, func(p *corev1.Pod) bool { return OwnerKey(p) == owner })
		if i >= 0 && fitsAlone(pending[i], node, pods) != nil {
			b.confirmed, b.Node = now, node.Name
			continue
		}
		delete(st.blocked, owner)
		msg := "pods of " + owner + " fit node " + node.Name + " now"
		if i < 0 {
			msg = "no pod of " + owner + " is pending"
		}
		out = append(out, Transition{Type: Cleared, Group: group, Node: node.Name, Owner: owner, Message: msg})
	}
	return out
}

// expire forgets what no node has shown for the timeout.
func (g *Guard) expire(group string, st *state, now time.Time) []Transition {
	var out []Transition
	if st.learnt != nil && now.Sub(st.confirmed) > g.cfg.Timeout {
		st.learnt = nil
		out = append(out, Transition{Type: Cleared, Group: group, Message: "no node has shown the differences for " + g.cfg.Timeout.String()})
	}
	for _, owner := range slices.Sorted(maps.Keys(st.blocked)) {
		if now.Sub(st.blocked[owner].confirmed) > g.cfg.Timeout {
			delete(st.blocked, owner)
			out = append(out, Transition{Type: Cleared, Group: group, Owner: owner, Message: "block of " + owner + " expired"})
		}
	}
	st.triggers = slices.DeleteFunc(st.triggers, func(t trigger) bool { return now.Sub(t.at) > g.cfg.Timeout })
	return out
}

// OwnerKey identifies the pods a block applies to: the controller's
// namespace, kind and name, or the pod's own name for a bare pod.
func OwnerKey(p *corev1.Pod) string {
	for _, r := range p.OwnerReferences {
		if r.Controller != nil && *r.Controller {
			return p.Namespace + "/" + r.Kind + "/" + r.Name
		}
	}
	return p.Namespace + "/Pod/" + p.Name
}
