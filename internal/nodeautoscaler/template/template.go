package template

import corev1 "k8s.io/api/core/v1"

// Template is a group's template node and the DaemonSet pods on it.
type Template struct {
	// Node is the template node; never share it with a snapshot that
	// renames or mutates nodes.
	Node *corev1.Node
	// DaemonSetPods are the pods every new node starts with: those
	// DaemonSets would run on it and, with --template-kube-proxy-pod,
	// upstream's fake kube-proxy mirror pod (see Pods).
	DaemonSetPods []*corev1.Pod
}
