package scenario

import (
	corev1 "k8s.io/api/core/v1"
)

// Event is one timed change; exactly one action field is set.
type Event struct {
	// At is the time since the start.
	At Duration `yaml:"at"`
	// AddPods creates pods of a workload (Pods kind) or extra bare pods.
	AddPods *PodCount `yaml:"addPods"`
	// RemovePods deletes the newest pods of a workload.
	RemovePods *PodCount `yaml:"removePods"`
	// ScaleWorkload sets a workload's replicas.
	ScaleWorkload *PodCount `yaml:"scaleWorkload"`
	// ChangeGroup changes a node group's configuration.
	ChangeGroup *GroupChange `yaml:"changeGroup"`
	// AddGroup adds a node group.
	AddGroup *NodeGroup `yaml:"addGroup"`
	// RemoveGroup removes a node group by name.
	RemoveGroup string `yaml:"removeGroup"`
	// SetTarget sets a group's target size from outside.
	SetTarget *TargetChange `yaml:"setTarget"`
	// AddInstance adds an instance by hand.
	AddInstance *InstanceChange `yaml:"addInstance"`
	// RemoveInstance terminates an instance outside the autoscaler.
	RemoveInstance *InstanceChange `yaml:"removeInstance"`
	// TaintNode adds a taint to a node.
	TaintNode *NodeTaint `yaml:"taintNode"`
	// UntaintNode removes a taint (by key) from a node.
	UntaintNode *NodeTaint `yaml:"untaintNode"`
	// AnnotateNode sets an annotation on a node, as another controller
	// would (for example a delay-deletion.cluster-autoscaler.kubernetes.io/
	// annotation).
	AnnotateNode *NodeAnnotation `yaml:"annotateNode"`
	// UnannotateNode removes an annotation (by key) from a node.
	UnannotateNode *NodeAnnotation `yaml:"unannotateNode"`
	// SetCloudError makes a group's cloud calls fail: instance creation
	// (its placeholders report the error) or its IncreaseSize calls.
	SetCloudError *GroupError `yaml:"setCloudError"`
	// ClearCloudError lets a group create instances and grow again.
	ClearCloudError string `yaml:"clearCloudError"`
	// RestartAutoscaler drops the autoscaler's in-memory state.
	RestartAutoscaler bool `yaml:"restartAutoscaler"`
}

// PodCount names a workload and a number.
type PodCount struct {
	// Workload is the workload name.
	Workload string `yaml:"workload"`
	// Count is the number of pods (or replicas for scaleWorkload).
	Count int `yaml:"count"`
}

// GroupChange changes a node group; unset fields stay.
type GroupChange struct {
	// Name is the group id.
	Name string `yaml:"name"`
	// Min is the new minimum size.
	Min *int `yaml:"min"`
	// Max is the new maximum size.
	Max *int `yaml:"max"`
	// InstanceTypes replaces the catalog types.
	InstanceTypes []string `yaml:"instanceTypes"`
	// Resources replaces the inline instance type.
	Resources Resources `yaml:"resources"`
	// Labels replaces the template labels.
	Labels map[string]string `yaml:"labels"`
	// Taints replaces the template taints.
	Taints *K8s[[]corev1.Taint] `yaml:"taints"`
	// BootTime replaces the boot time.
	BootTime *Duration `yaml:"bootTime"`
	// Capacity replaces the remaining capacity.
	Capacity *Capacity `yaml:"capacity"`
	// RealNodes replaces how nodes registering from now on differ from
	// the template (an empty value: not at all).
	RealNodes *RealNodes `yaml:"realNodes"`
}

// TargetChange sets a group's target size.
type TargetChange struct {
	// Group is the group id.
	Group string `yaml:"group"`
	// Target is the new target size.
	Target int `yaml:"target"`
}

// InstanceChange adds or removes one instance.
type InstanceChange struct {
	// Group is the group id.
	Group string `yaml:"group"`
	// Name is the instance id (generated when empty on add).
	Name string `yaml:"name"`
	// ChangeTarget raises (add) or lowers (remove) the target with it;
	// otherwise an added instance fulfils a placeholder.
	ChangeTarget bool `yaml:"changeTarget"`
	// NotReady registers the node with Ready=False (add only).
	NotReady bool `yaml:"notReady"`
	// BootTime delays the node (add only, default 0).
	BootTime Duration `yaml:"bootTime"`
	// Taints are put on the node when it registers (add only), e.g. a
	// startup taint.
	Taints K8s[[]corev1.Taint] `yaml:"taints"`
}

// NodeTaint adds or removes a taint.
type NodeTaint struct {
	// Node is the node name.
	Node string `yaml:"node"`
	// Key is the taint key.
	Key string `yaml:"key"`
	// Value is the taint value.
	Value string `yaml:"value"`
	// Effect is NoSchedule (default), PreferNoSchedule or NoExecute.
	Effect corev1.TaintEffect `yaml:"effect"`
}

// NodeAnnotation sets or removes a node annotation.
type NodeAnnotation struct {
	// Node is the node name.
	Node string `yaml:"node"`
	// Key is the annotation key.
	Key string `yaml:"key"`
	// Value is the annotation value (annotateNode only).
	Value string `yaml:"value"`
}

// GroupError makes one of a group's cloud calls fail until a
// clearCloudError event.
type GroupError struct {
	// Group is the group id.
	Group string `yaml:"group"`
	// Call is the call that fails: CallCreate (default) or CallIncrease.
	Call string `yaml:"call"`
	// CloudError is the error.
	CloudError `yaml:",inline"`
}

// Calls a setCloudError event can make fail.
const (
	// CallCreate: the group accepts size increases but cannot create the
	// instances; its placeholders report the error (class out-of-resources
	// or other), as a cloud's scaling activities do.
	CallCreate = "create"
	// CallIncrease: the IncreaseSize call itself fails with a cloud API
	// error carrying the code and message (class other only).
	CallIncrease = "increase"
)
