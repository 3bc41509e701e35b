package machinesim

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Flavor is one machine API: where its objects live and how their fields
// are spelled. Objects passed in are copies the Flavor may change.
type Flavor interface {
	// Resources returns the deployment, set and machine resources.
	Resources() (deployments, sets, machines schema.GroupVersionResource)
	// NewSet returns the set of a deployment, without name, namespace or
	// owner (the simulator sets those) and with the deployment's replicas.
	NewSet(deployment *unstructured.Unstructured) *unstructured.Unstructured
	// NewMachine returns a machine of a set, without name, namespace or
	// owner.
	NewMachine(set *unstructured.Unstructured) *unstructured.Unstructured
	// Deployment names the deployment a machine belongs to.
	Deployment(machine *unstructured.Unstructured) string
	// ProviderID reads the machine's provider id; SetProviderID writes it.
	ProviderID(machine *unstructured.Unstructured) string
	// SetProviderID writes the machine's provider id into its spec.
	SetProviderID(machine *unstructured.Unstructured, id string)
	// Failed reports whether the machine is marked failed.
	Failed(machine *unstructured.Unstructured) bool
	// MarkFailed writes a terminal failure into the machine's status.
	MarkFailed(machine *unstructured.Unstructured, f Failure)
	// MarkRunning writes the node reference into the machine's status.
	MarkRunning(machine *unstructured.Unstructured, node string)
	// NodeMeta returns the labels and annotations the machine's Node gets
	// from the machine API.
	NodeMeta(machine *unstructured.Unstructured) (labels, annotations map[string]string)
	// DeletePriority ranks a set's machines for scale-down; higher goes
	// first.
	DeletePriority(machine *unstructured.Unstructured) int
}

// Orderer is a Flavor with its own scale-down order: it replaces
// DeletePriority and the newest-first tie-break.
type Orderer interface {
	// DeleteOrder compares two machines of a set; the one that sorts
	// first is deleted first.
	DeleteOrder(a, b *unstructured.Unstructured) int
}

// Marker is a Flavor whose deployment controller marks machines for
// deletion from the deployment's own fields (Gardener MCM's
// trigger-deletion annotation).
type Marker interface {
	// Mark changes the deployment's machines (those of its sets) as the
	// controller would, and prunes the deployment; it reports whether the
	// deployment changed and which machines did.
	Mark(deployment *unstructured.Unstructured, machines []*unstructured.Unstructured) (bool, []*unstructured.Unstructured)
}

// Replacer is a Flavor whose failed machines turn terminal after a
// timeout, and whose sets delete terminal machines and create
// replacements (Gardener MCM's creation timeout).
type Replacer interface {
	// Expire turns a failed machine terminal when its time is up and
	// reports whether it changed the machine's status.
	Expire(machine *unstructured.Unstructured, now time.Time) bool
	// Terminal reports a machine its set deletes and replaces.
	Terminal(machine *unstructured.Unstructured) bool
}

// Failure is how a failing deployment's machines fail.
type Failure struct {
	// Reason is the machine API's failure reason or code.
	Reason string
	// Message is the human-readable message.
	Message string
	// Conditions asks a flavor whose machine API has two ways of
	// reporting failures for the current one, conditions only (Cluster
	// API v1beta2), instead of the deprecated failure fields; other
	// flavors ignore it.
	Conditions bool
}

// Shape is what a deployment's Nodes look like.
type Shape struct {
	// Capacity is the node's capacity (and allocatable).
	Capacity corev1.ResourceList
	// Labels are added to the node's labels.
	Labels map[string]string
	// Taints are the node's taints.
	Taints []corev1.Taint
}
