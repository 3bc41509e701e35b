package clusterstate

import (
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/nodeautoscaler/options"
)

// Taints the autoscaler puts on nodes it removes.
const (
	// ToBeDeletedTaint marks a node being drained.
	ToBeDeletedTaint = "ToBeDeletedByClusterAutoscaler"
	// BeingDeletedTaint marks a node whose cloud deletion is starting.
	BeingDeletedTaint = "BeingDeletedByClusterAutoscaler"
	// DeletionCandidateTaint is upstream's PreferNoSchedule taint on
	// unneeded nodes.
	DeletionCandidateTaint = "DeletionCandidateOfClusterAutoscaler"
)

// Taint key prefixes that mark a startup taint without configuration.
const (
	StartupTaintPrefix = "startup-taint.cluster-autoscaler.kubernetes.io/"
	IgnoreTaintPrefix  = "ignore-taint.cluster-autoscaler.kubernetes.io/"
	StatusTaintPrefix  = "status-taint.cluster-autoscaler.kubernetes.io/"
)

// Bucket is a node's readiness bucket.
type Bucket int

// Readiness buckets.
const (
	// Ready nodes are kubelet-Ready and carry no startup taint.
	Ready Bucket = iota
	// Unready nodes were ready once and are not now.
	Unready
	// NotStarted nodes registered recently and have not become ready.
	NotStarted
	// LongNotStarted nodes have not become ready within the startup time.
	LongNotStarted
	// Deleted nodes are being deleted: by the fork's rule they carry the
	// BeingDeleted taint; by upstream's (DeletedFromCloudInstances) the
	// provider does not vouch for their instance and they carry the
	// ToBeDeleted taint.
	Deleted
)

// ReadinessRules decides a node's bucket.
type ReadinessRules struct {
	// StartupTaints are taint keys that make a node not ready.
	StartupTaints []string
	// MaxNodeStartupTime is how long a node may take to become ready.
	MaxNodeStartupTime time.Duration
	// GPULabel is the cloud provider's label of GPU nodes (upstream's
	// CloudProvider.GPULabel); empty: none. A node with it whose
	// allocatable has no GPU yet (the device plugin is still starting) is
	// not ready, as upstream's GPU processor treats it.
	GPULabel string
	// DeletedFromCloudInstances is --deleted-nodes-from-cloud-instances:
	// CountBucket follows upstream's rule for the Deleted bucket instead
	// of the fork's.
	DeletedFromCloudInstances bool
	// Instances is what the provider can tell about a node's cloud
	// instance; read with DeletedFromCloudInstances only.
	Instances cloudprovider.InstanceKnowledge
}

// gpuResources are the extended resources a GPU node's device plugin
// reports.
var gpuResources = [...]corev1.ResourceName{"nvidia.com/gpu", "amd.com/gpu"}

// gpuPending reports a node labelled as a GPU node whose GPUs are not
// allocatable yet.
func (r ReadinessRules) gpuPending(n *corev1.Node) bool {
	if r.GPULabel == "" {
		return false
	}
	if _, ok := n.Labels[r.GPULabel]; !ok {
		return false
	}
	for _, g := range gpuResources {
		if q, ok := n.Status.Allocatable[g]; ok && !q.IsZero() {
			return false
		}
	}
	return true
}

// IsStartupTaint reports whether key marks a still-starting node.
func (r ReadinessRules) IsStartupTaint(key string) bool {
	if strings.HasPrefix(key, StartupTaintPrefix) || strings.HasPrefix(key, IgnoreTaintPrefix) {
		return true
	}
	for _, k := range r.StartupTaints {
		if k == key {
			return true
		}
		// An entry ending in the wildcard is a --startup-taint-prefix.
		if p, ok := strings.CutSuffix(k, options.TaintPrefixWildcard); ok && strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

// IsReady reports whether the node is kubelet-Ready without startup taints
// and without the not-ready or unreachable taint the node lifecycle
// controller keeps on nodes it does not consider healthy (such a node takes
// no new pods, so counting it as capacity would scale up twice).
func (r ReadinessRules) IsReady(n *corev1.Node) bool {
	cond := readyCondition(n)
	if cond == nil || cond.Status != corev1.ConditionTrue || r.gpuPending(n) {
		return false
	}
	for _, t := range n.Spec.Taints {
		if r.IsStartupTaint(t.Key) || t.Key == corev1.TaintNodeNotReady || t.Key == corev1.TaintNodeUnreachable {
			return false
		}
	}
	return true
}

// Bucket returns the node's readiness bucket at now as capacity sees it:
// a node whose cloud deletion started (BeingDeleted) is Deleted whatever
// the counting rule, so it is never taken for capacity.
func (r ReadinessRules) Bucket(n *corev1.Node, now time.Time) Bucket {
	if HasTaint(n, BeingDeletedTaint) {
		return Deleted
	}
	return r.liveBucket(n, now)
}

// CountBucket returns the bucket a node counts in (a group's readiness,
// the cluster's health) at now; listed says whether the node's provider
// ID is among the provider's instances. By the fork's rule (F10) it is
// Bucket. By upstream's (DeletedFromCloudInstances) a node is Deleted
// only when the provider does not vouch for its instance and it carries
// ToBeDeleted; otherwise it counts by its readiness, its deletion taints
// notwithstanding, as upstream's clusterstate counts it.
func (r ReadinessRules) CountBucket(n *corev1.Node, listed bool, now time.Time) Bucket {
	if !r.DeletedFromCloudInstances {
		return r.Bucket(n, now)
	}
	if !r.Instances.Vouches(listed) && HasTaint(n, ToBeDeletedTaint) {
		return Deleted
	}
	return r.liveBucket(n, now)
}

// liveBucket is the bucket of a node not counted as deleted.
func (r ReadinessRules) liveBucket(n *corev1.Node, now time.Time) Bucket {
	if r.IsReady(n) {
		return Ready
	}
	if !r.starting(n) {
		return Unready
	}
	if now.Sub(n.CreationTimestamp.Time) < r.MaxNodeStartupTime {
		return NotStarted
	}
	return LongNotStarted
}

// starting reports whether an unready node has never been ready: its GPUs
// are not allocatable yet, it carries a startup taint, or its Ready condition has not changed since creation, or
// it reports Ready while still carrying the not-ready taint (it has just
// become ready and the node lifecycle controller has not lifted the taint).
func (r ReadinessRules) starting(n *corev1.Node) bool {
	if r.gpuPending(n) {
		return true
	}
	cond := readyCondition(n)
	for _, t := range n.Spec.Taints {
		if r.IsStartupTaint(t.Key) {
			return true
		}
		if t.Key == corev1.TaintNodeNotReady && cond != nil && cond.Status == corev1.ConditionTrue {
			return true
		}
	}
	return cond == nil || !cond.LastTransitionTime.After(n.CreationTimestamp.Add(time.Second))
}

func readyCondition(n *corev1.Node) *corev1.NodeCondition {
	for i := range n.Status.Conditions {
		if n.Status.Conditions[i].Type == corev1.NodeReady {
			return &n.Status.Conditions[i]
		}
	}
	return nil
}

// HasTaint reports whether the node carries a taint with the key.
func HasTaint(n *corev1.Node, key string) bool {
	for _, t := range n.Spec.Taints {
		if t.Key == key {
			return true
		}
	}
	return false
}
