package fidelity

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
)

// The oracle's wire protocol (hack/fidelity/protocol.go declares the same
// shapes; change both together): a stream of JSON values, a Hello first
// and then one Response per Request, matched by ID.

// Hello is the first value the oracle writes.
type Hello struct {
	// KubernetesVersion is the k8s.io/kubernetes version the oracle runs.
	KubernetesVersion string `json:"kubernetesVersion"`
	// PreFilter and Filter list the default profile's plugins at those
	// extension points, in the order the framework runs them.
	PreFilter []string `json:"preFilter"`
	Filter    []string `json:"filter"`
}

// Request is one cluster and the pending pods to evaluate against it.
type Request struct {
	// ID is echoed in the response.
	ID int64 `json:"id"`
	// Nodes are the cluster's nodes; results come in this order.
	Nodes []corev1.Node `json:"nodes,omitempty"`
	// Pods are the bound pods.
	Pods []corev1.Pod `json:"pods,omitempty"`
	// Namespaces, volumes, storage classes and CSI nodes are the objects the
	// filters read.
	Namespaces             []corev1.Namespace             `json:"namespaces,omitempty"`
	PersistentVolumes      []corev1.PersistentVolume      `json:"persistentVolumes,omitempty"`
	PersistentVolumeClaims []corev1.PersistentVolumeClaim `json:"persistentVolumeClaims,omitempty"`
	StorageClasses         []storagev1.StorageClass       `json:"storageClasses,omitempty"`
	CSINodes               []storagev1.CSINode            `json:"csiNodes,omitempty"`
	// Services and ReplicaSets feed the cluster-default spread constraints.
	Services    []corev1.Service    `json:"services,omitempty"`
	ReplicaSets []appsv1.ReplicaSet `json:"replicaSets,omitempty"`
	// Pending are evaluated one by one against the cluster as it is,
	// unless Placements is set.
	Pending []corev1.Pod `json:"pending,omitempty"`
	// Placements, when set, has one node name per pending pod: the pods are
	// then scheduled in order, each evaluated with the earlier ones placed,
	// reserved (volumes assumed bound) and bound ("" leaves it pending).
	Placements []string `json:"placements,omitempty"`
}

// Response answers one Request.
type Response struct {
	// ID is the request's.
	ID int64 `json:"id"`
	// Error is set when the request could not be evaluated.
	Error string `json:"error,omitempty"`
	// Results holds one entry per pending pod, in request order.
	Results []PodResult `json:"results,omitempty"`
}

// PodResult is the oracle's verdict for one pending pod on every node.
type PodResult struct {
	// Plugins names, per node, the plugin that rejected the node, or ""
	// when the pod is feasible there (several PreFilter plugins are joined
	// with ",").
	Plugins []string `json:"plugins"`
	// Reasons holds the rejecting status's message per node.
	Reasons []string `json:"reasons"`
	// Errors is true for nodes where a plugin failed with an error.
	Errors []bool `json:"errors,omitempty"`
}
