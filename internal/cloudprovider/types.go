package cloudprovider

import (
	corev1 "k8s.io/api/core/v1"
)

// NodeGroup is a set of identical (or near-identical) instances the cloud
// scales as one unit, for example an AWS auto scaling group.
type NodeGroup struct {
	// ID names the group uniquely within the provider.
	ID string
	// MinSize is the smallest target size the autoscaler may set.
	MinSize int
	// MaxSize is the largest target size the autoscaler may set.
	MaxSize int
	// TargetSize is the number of instances the cloud is asked to run
	// (the desired capacity), including ones not created yet.
	TargetSize int
	// Template describes what a new instance of this group looks like.
	Template Template
	// ScaleDownBlocked, when set, says why none of the group's nodes may be
	// removed now (for example a rollout in progress); the scale-down
	// planner keeps them and reports this reason.
	ScaleDownBlocked string
	// Options are the group's own values of per-group autoscaler settings
	// (upstream's GetOptions); unset fields keep the global flags.
	Options Options
	// OptionsInvalid, when set, says which option values the group carries
	// could not be used (see OptionsError); Options is then empty and the
	// group runs on the global settings.
	OptionsInvalid string
}

// Template describes a group's future instances as plain values. Labels,
// taints and extra resources follow the cluster-autoscaler tag convention in
// Tags (see TagLabelPrefix, TagTaintPrefix and TagResourcePrefix).
type Template struct {
	// InstanceTypes lists the types the group may launch; with several, the
	// autoscaler assumes the minimum of each resource.
	InstanceTypes []InstanceType
	// Zones lists the group's availability zones; the first one is used for
	// the template's zone label.
	Zones []string
	// Region is the group's region, used for the region label when set.
	Region string
	// Tags carries node labels, taints and resources by the tag convention.
	Tags map[string]string
	// Taints are taints of new nodes beyond the tag convention, which can
	// hold only one taint per key. A taint tag replaces an entry with the
	// same key and effect.
	Taints []corev1.Taint
	// PricePerHour is what one new node of the group costs per hour, in
	// the provider's currency (AWS: US dollars); 0 means the provider
	// does not know. The price expander and the simulate report's cost
	// column read it.
	PricePerHour float64
	// UnavailableReason, when set, says why the provider cannot describe
	// new instances (InstanceTypes is then empty): the group can grow only
	// from a template copied off one of its live nodes.
	UnavailableReason string
}

// InstanceType is one machine type of the cloud's catalog.
type InstanceType struct {
	// Name is the type's name, for example "m5.xlarge"; empty when the
	// provider does not know it, and the template then carries no
	// instance-type labels.
	Name string
	// Capacity is what the machine has before any system reservation.
	Capacity corev1.ResourceList
	// Architecture is the CPU architecture as the kubernetes.io/arch label
	// spells it, for example "arm64" for AWS Graviton types; empty means
	// amd64.
	Architecture string
}

// Tag prefixes of the node-template convention shared with the upstream
// cluster autoscaler.
const (
	TagLabelPrefix    = "k8s.io/cluster-autoscaler/node-template/label/"
	TagTaintPrefix    = "k8s.io/cluster-autoscaler/node-template/taint/"
	TagResourcePrefix = "k8s.io/cluster-autoscaler/node-template/resources/"
)

// InstanceState is the lifecycle state of one instance as the cloud sees it.
type InstanceState string

// Instance states.
const (
	// InstanceCreating means the instance was requested and is not running
	// yet; it may carry an ErrorInfo when creation failed.
	InstanceCreating InstanceState = "creating"
	// InstanceRunning means the machine is up; its node may or may not have
	// registered with Kubernetes yet.
	InstanceRunning InstanceState = "running"
	// InstanceDeleting means deletion was requested and is in progress.
	InstanceDeleting InstanceState = "deleting"
)

// ErrorClass classifies an instance creation error.
type ErrorClass string

// Error classes.
const (
	// ErrorOutOfResources means the cloud has no capacity (stock-out, quota).
	ErrorOutOfResources ErrorClass = "out-of-resources"
	// ErrorOther is any other creation failure.
	ErrorOther ErrorClass = "other"
)

// ErrorInfo explains why an instance could not be created.
type ErrorInfo struct {
	// Class is the error class.
	Class ErrorClass
	// Code is the cloud's short error code, for example "Failed".
	Code string
	// Message is the cloud's human-readable message.
	Message string
}

// Instance is one member of a node group.
type Instance struct {
	// ID identifies the instance within the provider.
	ID string
	// ProviderID is the value the instance's Node carries in spec.providerID.
	ProviderID string
	// State is the instance's lifecycle state.
	State InstanceState
	// Placeholder marks an entry that stands for requested capacity the
	// cloud has not turned into a machine yet. Deleting a placeholder lowers
	// the target size by one and terminates nothing.
	Placeholder bool
	// Error is set when creation failed; only instances in InstanceCreating
	// carry it.
	Error *ErrorInfo
}
