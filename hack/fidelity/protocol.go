package main

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
)

// The wire protocol: a stream of JSON values on stdin and stdout. The
// oracle first writes a Hello, then one Response per Request, in any order
// (matched by ID). The main module's internal/simulator/fidelity package
// declares the same shapes; change both together.

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
	// Nodes are the cluster's nodes; results are given in this order.
	Nodes []corev1.Node `json:"nodes,omitempty"`
	// Pods are the bound pods (spec.nodeName set to one of Nodes).
	Pods                   []corev1.Pod                   `json:"pods,omitempty"`
	Namespaces             []corev1.Namespace             `json:"namespaces,omitempty"`
	PersistentVolumes      []corev1.PersistentVolume      `json:"persistentVolumes,omitempty"`
	PersistentVolumeClaims []corev1.PersistentVolumeClaim `json:"persistentVolumeClaims,omitempty"`
	StorageClasses         []storagev1.StorageClass       `json:"storageClasses,omitempty"`
	CSINodes               []storagev1.CSINode            `json:"csiNodes,omitempty"`
	// Services and ReplicaSets feed the cluster-default topology spread
	// constraints (the default profile's are ScheduleAnyway, so they never
	// filter; they are here so the defaulting code runs).
	Services    []corev1.Service    `json:"services,omitempty"`
	ReplicaSets []appsv1.ReplicaSet `json:"replicaSets,omitempty"`
	// Pending are evaluated one by one against the cluster as it is; none
	// of them sees another, unless Placements is set.
	Pending []corev1.Pod `json:"pending,omitempty"`
	// Placements, when set, has one node name per pending pod: the pods
	// are then scheduled in order, each evaluated against the cluster with
	// the earlier ones in place, and then reserved (the Reserve plugins:
	// volumes are assumed bound) and bound on its node ("" leaves it
	// pending), as the scheduler's cache sees them.
	Placements []string `json:"placements,omitempty"`
}

// Response answers one Request.
type Response struct {
	// ID is the request's.
	ID int64 `json:"id"`
	// Error is set when the request could not be evaluated at all.
	Error string `json:"error,omitempty"`
	// Results holds one entry per pending pod, in request order.
	Results []PodResult `json:"results,omitempty"`
}

// PodResult is the verdict for one pending pod on every node.
type PodResult struct {
	// Plugins names, per node (in request order), the plugin that
	// rejected the node, or "" when the pod is feasible there. A node
	// excluded by a PreFilter result or status carries the PreFilter
	// plugin's name; several are joined with ",".
	Plugins []string `json:"plugins"`
	// Reasons holds the rejecting status's message per node ("" when feasible).
	Reasons []string `json:"reasons"`
	// Errors is true for nodes where a plugin returned an error rather
	// than a rejection (the scheduler retries such pods later).
	Errors []bool `json:"errors,omitempty"`
}
