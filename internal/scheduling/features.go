package scheduling

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/version"
	ndf "k8s.io/component-helpers/nodedeclaredfeatures"
	ndftypes "k8s.io/component-helpers/nodedeclaredfeatures/types"
)

// ReasonDeclaredFeatures is kube-scheduler's NodeDeclaredFeatures reason.
const ReasonDeclaredFeatures = "node(s) didn't match Pod's required features"

// KubernetesVersion is the scheduler version whose node-declared feature
// requirements the simulator applies (the k8s.io minor of this module).
var kubernetesVersion = version.MustParse("1.36.0")

// RequiredFeatures is the set of node-declared features a pod needs, as
// the NodeDeclaredFeatures filter infers it; empty for most pods.
type RequiredFeatures struct{ set ndf.FeatureSet }

// PodRequiredFeatures infers the node features the pod needs.
func PodRequiredFeatures(pod *corev1.Pod) RequiredFeatures {
	set, err := ndf.DefaultFramework.InferForPodScheduling(&ndftypes.PodInfo{Spec: &pod.Spec}, kubernetesVersion)
	if err != nil {
		return RequiredFeatures{}
	}
	return RequiredFeatures{set: set}
}

// IsEmpty reports whether the pod needs no declared feature.
func (r RequiredFeatures) IsEmpty() bool { return r.set.IsEmpty() }

// Match reports whether the node declares every required feature.
func (r RequiredFeatures) Match(node *corev1.Node) bool {
	if r.set.IsEmpty() {
		return true
	}
	m, err := ndf.DefaultFramework.MatchNode(r.set, node)
	return err == nil && m.IsMatch
}
