// Package mismatch keeps the node autoscaler from adding node after node to
// a group whose real nodes differ from its template: a taint another
// controller puts on every new node, a template label the nodes lack, less
// allocatable than the template claims, DaemonSet or static pods the
// template does not hold. Without it, a pending pod that fits the template
// but not the real node triggers a scale-up every time one of the group's
// nodes turns Ready, up to the group's maximum.
//
// The Guard compares each group's template with the group's Ready nodes
// that registered after the template was first seen in its current form
// (so a template change on the cloud is not undone by old nodes), learns
// the differences into the template the estimate uses, and, as a backstop
// for differences it cannot learn, blocks the group for the pods that
// triggered a scale-up and still do not fit the new node although the
// learnt template says they would. It compares node properties, never pod
// progress, so a pod that is slow to start (image pulls, volume binding)
// is not taken for a mismatch. The package is pure: time comes in as a
// value and nodes and pods as objects.
package mismatch
