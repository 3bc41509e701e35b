package simulator

import corev1 "k8s.io/api/core/v1"

// PodCount returns the number of pods bound to the node, without copying
// them as Pods does.
func (v NodeInfo) PodCount() int { return len(v.n.pods) }

// PodAt returns the i-th pod bound to the node (0 <= i < PodCount), in the
// order Pods lists them, without copying the list.
func (v NodeInfo) PodAt(i int) *corev1.Pod { return v.n.pods[i].pod }
