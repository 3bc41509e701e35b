package scenario

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/cloudprovider/inmemory"
	"github.com/kscale/kscale/internal/nodeautoscaler/options"
)

// APIVersion and Kind every scenario file declares.
const (
	APIVersion = "kscale.dev/v1alpha1"
	Kind       = "Scenario"
)

// Scenario is one parsed and validated scenario file.
type Scenario struct {
	// APIVersion must be APIVersion.
	APIVersion string `yaml:"apiVersion"`
	// Kind must be Kind.
	Kind string `yaml:"kind"`
	// Name names the scenario in output.
	Name string `yaml:"name"`
	// Description says what the scenario shows.
	Description string `yaml:"description"`
	// Duration is how long the simulation runs.
	Duration Duration `yaml:"duration"`
	// Seed seeds the random choices of the autoscaler (the random
	// expander's tie-breaks); the same file and seed give the same run.
	Seed uint64 `yaml:"seed"`
	// Autoscaler holds the autoscaler options keyed by flag name.
	Autoscaler Settings `yaml:"autoscaler"`
	// Priorities is the priority expander's configuration: priority ->
	// regular expressions of node group names, as in the
	// cluster-autoscaler-priority-expander ConfigMap.
	Priorities map[int][]string `yaml:"priorities"`
	// Cloud tunes the simulated cloud as a whole.
	Cloud CloudSettings `yaml:"cloud"`
	// NodeGroups are the cloud's node groups at the start.
	NodeGroups []NodeGroup `yaml:"nodeGroups"`
	// Nodes are instances that already run at the start.
	Nodes []Node `yaml:"nodes"`
	// StorageClasses, PersistentVolumes and PersistentVolumeClaims are
	// the cluster's storage objects, which the pods' claims use.
	StorageClasses         []StorageClass          `yaml:"storageClasses"`
	PersistentVolumes      []PersistentVolume      `yaml:"persistentVolumes"`
	PersistentVolumeClaims []PersistentVolumeClaim `yaml:"persistentVolumeClaims"`
	// Workloads create pods.
	Workloads []Workload `yaml:"workloads"`
	// PodDisruptionBudgets are budgets with selectors of their own (a
	// workload's pdb is shorthand for one over its pods).
	PodDisruptionBudgets []PodDisruptionBudget `yaml:"podDisruptionBudgets"`
	// Events happen at given times.
	Events []Event `yaml:"events"`
	// Expect are the assertions checked by --check.
	Expect []Expectation `yaml:"expect"`
	// Options are the autoscaler options: the live command's defaults with
	// the autoscaler section applied. Set by Parse.
	Options options.Options `yaml:"-"`
}

// CloudSettings tune the simulated cloud.
type CloudSettings struct {
	// InstanceRefreshInterval makes the cloud report instance lists that are
	// regenerated at most this often (AWS: about a minute); 0 reports them
	// live.
	InstanceRefreshInterval Duration `yaml:"instanceRefreshInterval"`
}

// The node-group entry and its parts, shared with the kwok provider's
// cloud config: their one home, validation and conversion to the
// simulated cloud's groups are in package cloudprovider/inmemory.
type (
	// NodeGroup describes one node group of the simulated cloud.
	NodeGroup = inmemory.NodeGroupEntry
	// RealNodes describes how a group's registered nodes differ from its
	// template.
	RealNodes = inmemory.RealNodes
	// CloudError is an instance creation error the cloud reports.
	CloudError = inmemory.CloudError
)

// Node is an instance running at the start (or added by an event).
type Node struct {
	// Name is the instance id and node name; generated when empty.
	Name string `yaml:"name"`
	// Group is the node group id.
	Group string `yaml:"group"`
	// Count adds several unnamed nodes (default 1); only without Name.
	Count int `yaml:"count"`
	// NotReady registers the node with Ready=False.
	NotReady bool `yaml:"notReady"`
	// Taints are extra taints on the node object.
	Taints K8s[[]corev1.Taint] `yaml:"taints"`
}

// Workload creates pods.
type Workload struct {
	// Name names the workload; pods are named <name>-<n>.
	Name string `yaml:"name"`
	// Namespace defaults to "default".
	Namespace string `yaml:"namespace"`
	// Kind is ReplicaSet, Deployment (its pods owned by one ReplicaSet of
	// the same name), Job, DaemonSet or Pods (bare pods).
	Kind string `yaml:"kind"`
	// Replicas is the pod count (ReplicaSet, Job parallelism, Pods).
	Replicas int `yaml:"replicas"`
	// Scheduled binds the first N replicas at the start, packed onto the
	// initial nodes.
	Scheduled int `yaml:"scheduled"`
	// On says where the Scheduled pods run at the start: node name ->
	// how many of them run there. The nodes are named nodes of the
	// scenario and the counts sum to Scheduled. Empty packs them first
	// fit onto the initial nodes.
	On map[string]int `yaml:"on"`
	// Terminating says the pods are being deleted (a deletion timestamp
	// is set, as on a preemption victim or a pod in its grace period):
	// they hold their node, scale-down ignores them, and they go this
	// long after the start. Only for bare pods (kind Pods) that are all
	// scheduled.
	Terminating *Duration `yaml:"terminating"`
	// NotReady is how many of the Scheduled pods run but are not Ready
	// (starting, crash-looping) and stay so: a PodDisruptionBudget counts
	// them as unhealthy.
	NotReady int `yaml:"notReady"`
	// Desired, for kind ReplicaSet, is the desired replicas of the pods'
	// controller when they differ from Replicas (a StatefulSet short of
	// pods, a ReplicaSet whose surplus pods terminate): the workload's
	// PodDisruptionBudget counts it as its expected pods, as the
	// disruption controller does, until an event scales the workload. The
	// simulation creates or deletes no pod to reach it.
	Desired *int `yaml:"desired"`
	// RunTime makes Job pods succeed this long after they start running.
	RunTime *Duration `yaml:"runTime"`
	// StartupTime is how long a bound pod takes to become ready.
	StartupTime Duration `yaml:"startupTime"`
	// Controller, for kind ReplicaSet, is the controller the pods name as
	// their owner instead of a ReplicaSet of the workload's name (a
	// StatefulSet, a ReplicationController, a custom controller), and
	// whether it is missing (deleted, its pods left behind).
	Controller *Controller `yaml:"controller"`
	// VolumeClaimTemplates give each pod claims of its own, as a
	// StatefulSet's do (kind ReplicaSet or Pods).
	VolumeClaimTemplates []ClaimTemplate `yaml:"volumeClaimTemplates"`
	// Pod is the pod template.
	Pod PodTemplate `yaml:"pod"`
	// PodLabels are labels of single pods on top of pod.labels, by pod
	// number (pod <name>-<n>, n from 1 to replicas): pods of one
	// controller whose labels differ, which a budget may select part of.
	// A pod that replaces one gets the template's labels only.
	PodLabels map[int]map[string]string `yaml:"podLabels"`
	// PDB adds a PodDisruptionBudget named after the workload, selecting
	// its pods (app=<name>): shorthand for a podDisruptionBudgets entry.
	PDB *PDB `yaml:"pdb"`
}

// PodTemplate is the part of a pod spec scenarios may set.
type PodTemplate struct {
	// Requests are the container's requests.
	Requests Resources `yaml:"requests"`
	// Limits are the container's limits.
	Limits Resources `yaml:"limits"`
	// Labels are pod labels (the workload's selector label is added).
	Labels map[string]string `yaml:"labels"`
	// Annotations are pod annotations.
	Annotations map[string]string `yaml:"annotations"`
	// NodeSelector is the pod's node selector.
	NodeSelector map[string]string `yaml:"nodeSelector"`
	// Affinity is a corev1.Affinity.
	Affinity *K8s[corev1.Affinity] `yaml:"affinity"`
	// Tolerations are corev1.Tolerations.
	Tolerations K8s[[]corev1.Toleration] `yaml:"tolerations"`
	// TopologySpreadConstraints are corev1.TopologySpreadConstraints.
	TopologySpreadConstraints K8s[[]corev1.TopologySpreadConstraint] `yaml:"topologySpreadConstraints"`
	// Priority is the pod priority.
	Priority int32 `yaml:"priority"`
	// Volumes are the pod's local storage volumes, which scale-down's
	// --skip-nodes-with-local-storage rule reads (with the
	// cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes
	// annotation), and its claim and generic ephemeral volumes.
	Volumes []Volume `yaml:"volumes"`
}

// Volume types a pod template's volume may have.
const (
	VolumeEmptyDir  = "emptyDir"
	VolumeHostPath  = "hostPath"
	VolumeClaim     = "persistentVolumeClaim"
	VolumeEphemeral = "ephemeral"
)

// VolumeTypes are the valid Volume.Type values.
var VolumeTypes = []string{VolumeEmptyDir, VolumeHostPath, VolumeClaim, VolumeEphemeral}

// Volume is one volume of a pod.
type Volume struct {
	// Name is the volume's name (a DNS label), as the safe-to-evict
	// annotation lists it.
	Name string `yaml:"name"`
	// Type is emptyDir, hostPath, persistentVolumeClaim or ephemeral.
	Type string `yaml:"type"`
	// Claim, for type persistentVolumeClaim, names the claim in the
	// workload's namespace: a listed one, or one a volume's claim names.
	Claim string `yaml:"claim,omitempty"`
	// Ephemeral, for type ephemeral, is the claim the volume creates for
	// its pod (named <pod>-<volume>, owned by the pod), as the ephemeral
	// volume controller does, unless one of that name is listed.
	Ephemeral *ClaimSpec `yaml:"ephemeral,omitempty"`
}

// PDB is a PodDisruptionBudget for a workload: exactly one field is set.
type PDB struct {
	// MinAvailable is an int or percentage.
	MinAvailable string `yaml:"minAvailable"`
	// MaxUnavailable is an int or percentage.
	MaxUnavailable string `yaml:"maxUnavailable"`
}

// Controller is the owner a workload's pods name.
type Controller struct {
	// APIVersion is the owner reference's apiVersion (apps/v1, v1,
	// example.com/v1, ...).
	APIVersion string `yaml:"apiVersion"`
	// Kind is the owner reference's kind.
	Kind string `yaml:"kind"`
	// Missing says the controller object does not exist.
	Missing bool `yaml:"missing"`
}
