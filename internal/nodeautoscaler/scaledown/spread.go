package scaledown

import (
	corev1 "k8s.io/api/core/v1"
)

// zoneLabel is the topology key of the emulated spread constraint.
const zoneLabel = corev1.LabelTopologyZone

// pinToZone returns the pod as the scale-down simulation moves it. A pod
// with the emulated zone spread constraint (Zalando's shape: one
// DoNotSchedule constraint on the zone with maxSkew 1 whose selector is
// exactly the pod's own non-empty value of label) loses the constraint and is
// pinned to zone by a node selector instead, so it never moves across zones.
// Other pods, and pods when label or zone is empty, come back unchanged.
func pinToZone(pod *corev1.Pod, label, zone string) *corev1.Pod {
	if label == "" || zone == "" || !hasEmulatedSpread(pod, label) {
		return pod
	}
	out := pod.DeepCopy()
	out.Spec.TopologySpreadConstraints = nil
	sel := make(map[string]string, len(pod.Spec.NodeSelector)+1)
	for k, v := range pod.Spec.NodeSelector {
		sel[k] = v
	}
	sel[zoneLabel] = zone
	out.Spec.NodeSelector = sel
	return out
}

// hasEmulatedSpread reports whether the pod's spread constraint has the one
// shape the fork emulates. A nil selector does not qualify.
func hasEmulatedSpread(pod *corev1.Pod, label string) bool {
	tsc := pod.Spec.TopologySpreadConstraints
	if len(tsc) != 1 {
		return false
	}
	c := tsc[0]
	if c.TopologyKey != zoneLabel || c.MaxSkew != 1 || c.WhenUnsatisfiable != corev1.DoNotSchedule {
		return false
	}
	s := c.LabelSelector
	if s == nil || len(s.MatchExpressions) != 0 || len(s.MatchLabels) != 1 {
		return false
	}
	v, ok := s.MatchLabels[label]
	return ok && v != "" && pod.Labels[label] == v
}
