package scheduling

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
)

// Reasons of kube-scheduler's NodeAffinity plugin.
const (
	ReasonNodeAffinity = "node(s) didn't match Pod's node affinity/selector"
	// ReasonNodeAffinityNames is the reason for nodes outside the set of
	// node names that every required term names by metadata.name.
	ReasonNodeAffinityNames = "node(s) didn't satisfy plugin NodeAffinity"
	// ReasonNodeAffinityConflict is the reason when those sets leave no node.
	ReasonNodeAffinityConflict = "pod affinity terms conflict"
)

// NodeMatcher is a pod's parsed nodeSelector and required node affinity.
type NodeMatcher struct {
	required nodeaffinity.RequiredNodeAffinity
	empty    bool
	// names is the set of nodes the NodeAffinity PreFilter narrows the pod
	// to (nil: every node).
	names map[string]struct{}
}

// NewNodeMatcher parses the pod's nodeSelector and required node affinity.
func NewNodeMatcher(pod *corev1.Pod) NodeMatcher {
	a := pod.Spec.Affinity
	empty := len(pod.Spec.NodeSelector) == 0 &&
		(a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil)
	m := NodeMatcher{required: nodeaffinity.GetRequiredNodeAffinity(pod), empty: empty}
	if !empty && a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		m.names = nodeNames(a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms)
	}
	return m
}

// nodeNames is the NodeAffinity PreFilter's node set: when every term
// names nodes with a metadata.name In requirement, the union over the
// terms of the intersection within each; nil otherwise.
func nodeNames(terms []corev1.NodeSelectorTerm) map[string]struct{} {
	if len(terms) == 0 {
		return nil
	}
	union := map[string]struct{}{}
	for _, t := range terms {
		var inTerm map[string]struct{}
		for _, r := range t.MatchFields {
			if r.Key != metav1.ObjectNameField || r.Operator != corev1.NodeSelectorOpIn {
				continue
			}
			s := map[string]struct{}{}
			for _, v := range r.Values {
				if _, ok := inTerm[v]; ok || inTerm == nil {
					s[v] = struct{}{}
				}
			}
			inTerm = s
		}
		if inTerm == nil {
			return nil
		}
		for v := range inTerm {
			union[v] = struct{}{}
		}
	}
	return union
}

// Match reports whether the node satisfies the pod's nodeSelector and
// required node affinity. A selector that does not parse matches no node,
// as in kube-scheduler.
func (m NodeMatcher) Match(node *corev1.Node) bool {
	if m.empty {
		return true
	}
	ok, err := m.required.Match(node)
	return ok && err == nil
}

// NamedNodes reports whether the required node affinity names the nodes
// the pod may use by metadata.name in every term: the NodeAffinity
// PreFilter then rejects every other node before any filter runs, and
// every node when the names conflict (the set is empty).
func (m NodeMatcher) NamedNodes() (restricted, conflict bool) {
	return m.names != nil, m.names != nil && len(m.names) == 0
}

// Named reports whether the node is in the PreFilter's node set (always
// true when the affinity names no nodes).
func (m NodeMatcher) Named(node string) bool {
	if m.names == nil {
		return true
	}
	_, ok := m.names[node]
	return ok
}

// IsEmpty reports whether the pod has neither nodeSelector nor required
// node affinity.
func (m NodeMatcher) IsEmpty() bool { return m.empty }
