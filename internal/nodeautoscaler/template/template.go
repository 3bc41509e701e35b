package template

import corev1 "k8s.io/api/core/v1"

// Template is a group's template node and the DaemonSet pods on it.
type Template struct {
	// Node is the template node; never share it with a snapshot that
	// renames or mutates nodes.
	Node *corev1.Node
	// DaemonSetPods are the pods DaemonSets would run on the node.
	DaemonSetPods []*corev1.Pod
}
