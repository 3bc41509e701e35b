package scenario

import (
	corev1 "k8s.io/api/core/v1"

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
	// Workloads create pods.
	Workloads []Workload `yaml:"workloads"`
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

// NodeGroup describes one node group of the simulated cloud.
type NodeGroup struct {
	// Name is the group id.
	Name string `yaml:"name"`
	// Min is the minimum size (default 0).
	Min int `yaml:"min"`
	// Max is the maximum size.
	Max int `yaml:"max"`
	// Target is the initial target size; the group starts with at least
	// its min size and its initial nodes (InitialTarget).
	Target int `yaml:"target"`
	// InstanceTypes names built-in catalog types; several mean a mixed group.
	InstanceTypes []string `yaml:"instanceTypes"`
	// Resources defines one inline instance type instead of InstanceTypes.
	Resources Resources `yaml:"resources"`
	// Reserved is what the kubelet reserves on real nodes
	// (allocatable = capacity - reserved); the autoscaler must learn it.
	Reserved Resources `yaml:"reserved"`
	// Zone is the group's availability zone.
	Zone string `yaml:"zone"`
	// Labels are template node labels (provider tags).
	Labels map[string]string `yaml:"labels"`
	// Taints are template node taints (provider tags).
	Taints K8s[[]corev1.Taint] `yaml:"taints"`
	// BootTime is how long an instance takes from request to a ready node
	// (default 2m).
	BootTime *Duration `yaml:"bootTime"`
	// Capacity is how many more instances the cloud can deliver.
	Capacity *Capacity `yaml:"capacity"`
	// StockoutError is reported on waiting placeholders once capacity ran
	// out; without it the autoscaler only notices by timeout.
	StockoutError *CloudError `yaml:"stockoutError"`
	// RealNodes says how the group's registered nodes differ from its
	// template; the autoscaler is not told.
	RealNodes *RealNodes `yaml:"realNodes"`
	// AutoscalingOptions are the group's own values of the settings a
	// provider lets a group override, by upstream's keys
	// (scaledownunneededtime, scaledownutilizationthreshold, ...), as the
	// clusterapi annotations or AWS tags carry them.
	AutoscalingOptions map[string]string `yaml:"autoscalingOptions"`
	// Unmanaged makes the group's nodes nodes of no node group: the cloud
	// does not report the group, so the autoscaler neither adds nor
	// removes its nodes and scale-down finds them not autoscaled. It
	// holds nodes that run outside the autoscaler's groups (control-plane
	// nodes, hand-made ones); its size stays its initial nodes.
	Unmanaged bool `yaml:"unmanaged"`
	// PricePerHour is what one of the group's instances costs per hour,
	// in any currency: the group's template price (the price expander)
	// and the report's cost per group.
	PricePerHour float64 `yaml:"pricePerHour"`
}

// InitialTarget is the target size a group starts with, before its
// initial nodes are counted: the written target, raised to the min size
// as a cloud keeps a group's desired size at least at its minimum.
func (g NodeGroup) InitialTarget() int { return max(g.Target, g.Min) }

// RealNodes describes how a group's registered nodes differ from what its
// template (the provider's tags) says, as when another controller taints
// every new node or a tag is wrong.
type RealNodes struct {
	// Taints are put on every node of the group when it registers.
	Taints K8s[[]corev1.Taint] `yaml:"taints"`
	// Labels are set on every node of the group, overriding the
	// template's values.
	Labels map[string]string `yaml:"labels"`
	// RemoveLabels are template labels the nodes do not carry.
	RemoveLabels []string `yaml:"removeLabels"`
}

// CloudError is an instance creation error the cloud reports.
type CloudError struct {
	// Class is out-of-resources or other (default other).
	Class string `yaml:"class"`
	// Code is the cloud's error code (default Failed).
	Code string `yaml:"code"`
	// Message is the error text.
	Message string `yaml:"message"`
}

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
	// RunTime makes Job pods succeed this long after they start running.
	RunTime *Duration `yaml:"runTime"`
	// StartupTime is how long a bound pod takes to become ready.
	StartupTime Duration `yaml:"startupTime"`
	// Controller, for kind ReplicaSet, is the controller the pods name as
	// their owner instead of a ReplicaSet of the workload's name (a
	// StatefulSet, a ReplicationController, a custom controller), and
	// whether it is missing (deleted, its pods left behind).
	Controller *Controller `yaml:"controller"`
	// Pod is the pod template.
	Pod PodTemplate `yaml:"pod"`
	// PDB adds a PodDisruptionBudget selecting the workload's pods.
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
