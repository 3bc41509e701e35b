package nodeautoscaler

import (
	"context"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/nodeautoscaler/clusterstate"
	"github.com/kscale/kscale/internal/nodeautoscaler/mismatch"
	"github.com/kscale/kscale/internal/nodeautoscaler/scaleup"
)

// Event types of the template mismatch guard.
const (
	// EventTemplateMismatch means a group's new Ready node differs from
	// its template (which taint, label, resource or pod is in Message);
	// the group's template now carries what the node showed.
	EventTemplateMismatch EventType = EventType(mismatch.Detected)
	// EventTemplateMismatchBlocked means a group is no longer scaled up
	// for an owner's pods (Reason) that fit its template but not its new
	// node.
	EventTemplateMismatchBlocked EventType = EventType(mismatch.BlockedPods)
	// EventTemplateMismatchCleared means a mismatch or block ended.
	EventTemplateMismatchCleared EventType = EventType(mismatch.Cleared)
)

// guardTemplates lets the mismatch guard observe every group's real nodes
// against its template, records what changed, and hands each group the
// template corrected by what its nodes taught and the pods it is blocked
// for.
func (a *Autoscaler) guardTemplates(ctx context.Context, obs *observation, groups []scaleup.Group, provider []cloudprovider.NodeGroup, now time.Time) {
	in := mismatch.Input{Pending: obs.pending, Now: now, PodsOn: obs.podsOn}
	nodes := a.guardNodes(obs.nodes, now)
	for i, g := range groups {
		t := provider[i].Template
		in.Groups = append(in.Groups, mismatch.Group{ID: g.ID, Fingerprint: templateFingerprint(t),
			Zones: t.Zones, Template: g.Template, Nodes: nodes[g.ID]})
	}
	for _, t := range a.guard.Observe(in) {
		a.record(ctx, Event{Type: EventType(t.Type), Group: t.Group, Reason: t.Owner, Message: t.Message, Nodes: nodeList(t.Node)})
	}
	for i := range groups {
		g := &groups[i]
		g.Template = a.guard.Template(g.ID, g.Template)
		if blocks := a.guard.Blocked(g.ID); blocks != nil {
			g.Blocked = func(p *corev1.Pod) string {
				if b := blocks[mismatch.OwnerKey(p)]; b != nil {
					return "pods do not fit node " + b.Node + ": " + b.Reason
				}
				return ""
			}
		}
		if s, ok := a.guard.Status(g.ID); ok && len(s.Differences) > 0 {
			g.TemplateNote = fmt.Sprintf("node %s differs from the provider's template: %s", s.Node, mismatch.Describe(s.Differences))
		}
	}
}

// guardNodes returns each group's Ready nodes that are neither cordoned
// nor being deleted: the nodes that show what the group really delivers.
func (a *Autoscaler) guardNodes(nodes []*corev1.Node, now time.Time) map[string][]*corev1.Node {
	rules := readinessRules(&a.cfg.Options)
	out := map[string][]*corev1.Node{}
	for _, n := range nodes {
		if n.Spec.Unschedulable || clusterstate.HasTaint(n, clusterstate.ToBeDeletedTaint) || clusterstate.HasTaint(n, clusterstate.BeingDeletedTaint) ||
			rules.Bucket(n, now) != clusterstate.Ready {
			continue
		}
		if g, ok := a.state.NodeGroupOf(n); ok {
			out[g] = append(out[g], n)
		}
	}
	return out
}

func nodeList(n string) []string {
	if n == "" {
		return nil
	}
	return []string{n}
}

// templateFingerprint identifies the provider's description of a template:
// instance types with their capacity, zones, region and tags.
func templateFingerprint(t cloudprovider.Template) string {
	h := fnv.New64a()
	for _, it := range t.InstanceTypes {
		_, _ = fmt.Fprintf(h, "type %s", it.Name)
		for _, r := range slices.Sorted(maps.Keys(it.Capacity)) {
			q := it.Capacity[r]
			_, _ = fmt.Fprintf(h, " %s=%s", r, q.String())
		}
		h.Write([]byte{0})
	}
	_, _ = fmt.Fprintf(h, "zones %s\x00region %s\x00", strings.Join(t.Zones, ","), t.Region)
	for _, k := range slices.Sorted(maps.Keys(t.Tags)) {
		_, _ = fmt.Fprintf(h, "%s=%s\x00", k, t.Tags[k])
	}
	return fmt.Sprintf("%016x", h.Sum64())
}

// describeMismatch renders a group's mismatch for the status ConfigMap.
func describeMismatch(s mismatch.Status) string {
	var parts []string
	if len(s.Differences) > 0 {
		parts = append(parts, fmt.Sprintf("node %s differs from the provider's template: %s", s.Node, mismatch.Describe(s.Differences)))
	}
	for _, b := range s.Blocks {
		parts = append(parts, fmt.Sprintf("not scaled up for pods of %s: they do not fit node %s (%s)", b.Owner, b.Node, b.Reason))
	}
	return strings.Join(parts, "; ")
}
