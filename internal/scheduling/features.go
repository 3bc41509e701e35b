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
	if !mayNeedFeatures(pod) {
		return RequiredFeatures{}
	}
	set, err := ndf.DefaultFramework.InferForPodScheduling(&ndftypes.PodInfo{Spec: &pod.Spec}, kubernetesVersion)
	if err != nil {
		return RequiredFeatures{}
	}
	return RequiredFeatures{set: set}
}

// inferringFields names, per feature of the registry, the pod fields its
// scheduling inference reads; TestDeclaredFeatureRegistry fails when the
// registry changes, so mayNeedFeatures stays complete.
var inferringFields = map[string]string{
	"RestartAllContainersOnContainerExits":    "containers' restartPolicyRules",
	"UserNamespacesHostNetworkSupport":        "hostNetwork with hostUsers false",
	"InPlacePodLevelResourcesVerticalScaling": "(updates only)",
	"InPlacePodVerticalScalingInitContainers": "(updates only)",
	"ExtendWebSocketsToKubelet":               "(never)",
}

// mayNeedFeatures is a cheap test of the fields in inferringFields, so
// that the inference (which allocates) runs only for pods that may need a
// feature.
func mayNeedFeatures(pod *corev1.Pod) bool {
	if pod.Spec.HostNetwork && pod.Spec.HostUsers != nil && !*pod.Spec.HostUsers {
		return true
	}
	for i := range pod.Spec.Containers {
		if len(pod.Spec.Containers[i].RestartPolicyRules) > 0 {
			return true
		}
	}
	for i := range pod.Spec.InitContainers {
		if len(pod.Spec.InitContainers[i].RestartPolicyRules) > 0 {
			return true
		}
	}
	return false
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
