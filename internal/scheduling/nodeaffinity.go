package scheduling

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
)

// ReasonNodeAffinity is kube-scheduler's NodeAffinity failure reason.
const ReasonNodeAffinity = "node(s) didn't match Pod's node affinity/selector"

// NodeMatcher is a pod's parsed nodeSelector and required node affinity.
type NodeMatcher struct {
	required nodeaffinity.RequiredNodeAffinity
	empty    bool
}

// NewNodeMatcher parses the pod's nodeSelector and required node affinity.
func NewNodeMatcher(pod *corev1.Pod) NodeMatcher {
	a := pod.Spec.Affinity
	empty := len(pod.Spec.NodeSelector) == 0 &&
		(a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil)
	return NodeMatcher{required: nodeaffinity.GetRequiredNodeAffinity(pod), empty: empty}
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

// IsEmpty reports whether the pod has neither nodeSelector nor required
// node affinity.
func (m NodeMatcher) IsEmpty() bool { return m.empty }
