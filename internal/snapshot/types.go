package snapshot

import (
	"errors"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kscale/kscale/internal/scenario"
)

// Cluster holds the objects a snapshot is made of, as listed from the API.
type Cluster struct {
	// Source names the cluster (its API server URL) in the output header.
	Source string
	// Nodes are all nodes.
	Nodes []corev1.Node
	// Pods are the pods of all namespaces.
	Pods []corev1.Pod
	// PDBs are the PodDisruptionBudgets of all namespaces.
	PDBs []policyv1.PodDisruptionBudget
	// Controllers are the ReplicaSets, StatefulSets, Jobs and
	// ReplicationControllers that exist, by ControllerKey; nil when
	// unknown (every controller then counts as existing).
	Controllers map[string]bool
	// Desired are the desired replicas of the ReplicaSets, StatefulSets
	// and ReplicationControllers, by ControllerKey: what the disruption
	// controller counts as a budget's expected pods.
	Desired map[string]int32
	// DaemonSets are the DaemonSets of all namespaces: the autoscaler puts
	// their pods on scale-up's node templates.
	DaemonSets []appsv1.DaemonSet
	// StorageClasses, PersistentVolumes and PersistentVolumeClaims are
	// every class, volume and claim: where the pods' volumes let them run.
	StorageClasses         []storagev1.StorageClass
	PersistentVolumes      []corev1.PersistentVolume
	PersistentVolumeClaims []corev1.PersistentVolumeClaim
	// Priorities is the priority expander ConfigMap; nil when it is absent.
	Priorities *corev1.ConfigMap
}

// DefaultGroupLabels are the node labels that name a node's group when no
// cloud config is given, tried in this order: Zalando's node pools, Gardener
// worker pools, EKS managed node groups, GKE node pools, AKS agent pools,
// Karpenter node pools and kops instance groups.
var DefaultGroupLabels = []string{
	"node.kubernetes.io/node-pool",
	"worker.gardener.cloud/pool",
	"eks.amazonaws.com/nodegroup",
	"cloud.google.com/gke-nodepool",
	"kubernetes.azure.com/agentpool",
	"karpenter.sh/nodepool",
	"kops.k8s.io/instancegroup",
}

// SizeFromCluster as MinSize or MaxSize means "the group's current node
// count".
const SizeFromCluster = -1

// Options configure Convert.
type Options struct {
	// Now is the time of the snapshot, shown in the header and description.
	Now time.Time
	// Duration is how long the simulation runs.
	Duration time.Duration
	// Name is the scenario name; default "snapshot <Now>".
	Name string
	// NodeGroups are the groups of the kwok cloud config; nodes join them by
	// provider id. Nil infers groups from GroupLabels.
	NodeGroups []scenario.NodeGroup
	// GroupLabels name a node's group, first present label wins (inferred
	// groups only); default DefaultGroupLabels.
	GroupLabels []string
	// MinSize is every inferred group's minimum size; SizeFromCluster uses
	// its node count.
	MinSize int
	// MaxSize is every inferred group's maximum size (raised to the node
	// count when lower); SizeFromCluster uses its node count.
	MaxSize int
}

// Default fills unset fields.
func (o *Options) Default() {
	if o.Name == "" {
		o.Name = "snapshot " + o.Now.UTC().Format(time.RFC3339)
	}
	if o.NodeGroups == nil && len(o.GroupLabels) == 0 {
		o.GroupLabels = DefaultGroupLabels
	}
}

// Validate reports invalid fields.
func (o *Options) Validate() error {
	var errs []error
	if o.Now.IsZero() {
		errs = append(errs, errors.New("now: required"))
	}
	if o.Duration <= 0 || o.Duration > 31*24*time.Hour {
		errs = append(errs, fmt.Errorf("duration: must be positive and at most 31 days, got %v", o.Duration))
	}
	if o.MinSize < SizeFromCluster || o.MaxSize < SizeFromCluster || o.MaxSize == 0 {
		errs = append(errs, fmt.Errorf("minSize, maxSize: want -1 (the node count) or a size (max > 0), got %d and %d", o.MinSize, o.MaxSize))
	}
	if o.MinSize >= 0 && o.MaxSize > 0 && o.MinSize > o.MaxSize {
		errs = append(errs, fmt.Errorf("minSize %d is above maxSize %d", o.MinSize, o.MaxSize))
	}
	if o.NodeGroups != nil && (o.MinSize != SizeFromCluster || o.MaxSize != SizeFromCluster) {
		errs = append(errs, errors.New("minSize, maxSize: only for inferred groups; the cloud config sets min and max"))
	}
	return errors.Join(errs...)
}

// Result is a converted snapshot.
type Result struct {
	// Scenario is the scenario; Marshal writes it.
	Scenario *scenario.Scenario
	// Header are the lines of the comment header: where and when the
	// snapshot was taken.
	Header []string
	// Notes list what the scenario cannot express or had to approximate,
	// one finding per entry; Marshal writes them into the header.
	Notes []string
}

func (r *Result) notef(format string, args ...any) {
	r.Notes = append(r.Notes, fmt.Sprintf(format, args...))
}

// ControllerKey identifies a controller object as a pod's owner reference
// names it: namespace, kind, name and UID.
func ControllerKey(namespace, kind, name string, uid types.UID) string {
	return namespace + "/" + kind + "/" + name + "/" + string(uid)
}
