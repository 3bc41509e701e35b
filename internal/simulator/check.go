package simulator

import (
	k8slabels "k8s.io/apimachinery/pkg/labels"

	"github.com/kscale/kscale/internal/scheduling"
)

// fits reports whether one more pod of the group fits on the node.
func (g *groupState) fits(n *nodeInfo) bool {
	if g.preFilter != nil {
		return false
	}
	if scheduling.InsufficientReason(&g.spec.requests, &n.requested, &n.alloc) != "" {
		return false
	}
	return g.check(n) == nil
}

// check runs the filters in kube-scheduler's order and returns the first
// failure, or nil when the pod fits.
func (g *groupState) check(n *nodeInfo) *FitError {
	if g.preFilter != nil {
		fe := *g.preFilter
		fe.Node = n.node.Name
		return &fe
	}
	if !g.spec.nodeMatcher.Named(n.node.Name) {
		return &FitError{Node: n.node.Name, Filter: FilterNodeAffinity, Reason: scheduling.ReasonNodeAffinityNames}
	}
	filter, reason := g.firstFailure(n)
	if filter == "" {
		return nil
	}
	return &FitError{Node: n.node.Name, Filter: filter, Reason: reason}
}

func (g *groupState) firstFailure(n *nodeInfo) (string, string) {
	spec, node := g.spec, n.node
	if node.Spec.Unschedulable && !scheduling.ToleratesUnschedulable(spec.tolerations) {
		return FilterNodeUnschedulable, scheduling.ReasonUnschedulable
	}
	if spec.nodeName != "" && spec.nodeName != node.Name {
		return FilterNodeName, "node(s) didn't match the requested node name"
	}
	if _, bad := scheduling.UntoleratedTaint(node.Spec.Taints, spec.tolerations); bad {
		return FilterTaintToleration, scheduling.ReasonUntoleratedTaint
	}
	if !spec.nodeMatcher.Match(node) {
		return FilterNodeAffinity, scheduling.ReasonNodeAffinity
	}
	if len(spec.ports) > 0 && scheduling.PortsConflict(spec.ports, n.ports) {
		return FilterNodePorts, scheduling.ReasonPorts
	}
	if r := scheduling.InsufficientReason(&spec.requests, &n.requested, &n.alloc); r != "" {
		return FilterNodeResourcesFit, r
	}
	if g.vol != nil || len(spec.diskVolumes) > 0 {
		if f, r := g.volumeFailure(g.snap, n); f != "" {
			return f, r
		}
	}
	if r := g.spreadFailure(n); r != "" {
		return FilterPodTopologySpread, r
	}
	if r := g.interPodFailure(n); r != "" {
		return FilterInterPodAffinity, r
	}
	if !spec.features.Match(node) {
		return FilterNodeDeclaredFeatures, scheduling.ReasonDeclaredFeatures
	}
	return "", ""
}

func (g *groupState) spreadFailure(n *nodeInfo) string {
	labels := n.node.Labels
	for _, sc := range g.spread {
		if _, ok := labels[sc.c.TopologyKey]; !ok {
			return scheduling.ReasonSpreadMissingLabel
		}
	}
	for _, sc := range g.spread {
		self := sc.c.Selector.Matches(k8slabels.Set(g.spec.labels))
		if !sc.c.Fits(sc.counts, labels[sc.c.TopologyKey], self) {
			return scheduling.ReasonSpread
		}
	}
	return ""
}

func (g *groupState) interPodFailure(n *nodeInfo) string {
	labels := n.node.Labels
	if g.aff != nil {
		exist := true
		for i := range g.aff.terms {
			v, ok := labels[g.aff.terms[i].TopologyKey]
			if !ok {
				return scheduling.ReasonAffinity
			}
			if g.aff.counts[i][v] <= 0 {
				exist = false
			}
		}
		if !exist && (g.aff.total > 0 || !g.selfAffinity) {
			return scheduling.ReasonAffinity
		}
	}
	if g.anti != nil && g.anti.total > 0 {
		for i := range g.anti.terms {
			if v, ok := labels[g.anti.terms[i].TopologyKey]; ok && g.anti.counts[i][v] > 0 {
				return scheduling.ReasonAntiAffinity
			}
		}
	}
	for _, k := range g.antiKeys {
		if v, ok := labels[k]; ok && g.existingAnti[labelKV{k, v}] > 0 {
			return scheduling.ReasonExistingAntiAffn
		}
	}
	return ""
}
