package clusterapi

// DefaultGroup is Cluster API's API group; CAPI_GROUP may replace it, and
// every annotation and label prefix below follows it.
const DefaultGroup = "cluster.x-k8s.io"

// Annotations on scalable resources that describe scale-from-zero
// templates, shared with the upstream cluster autoscaler; they do not
// follow CAPI_GROUP.
const (
	CapacityPrefix     = "capacity.cluster-autoscaler.kubernetes.io/"
	CPUAnnotation      = CapacityPrefix + "cpu"
	MemoryAnnotation   = CapacityPrefix + "memory"
	DiskAnnotation     = CapacityPrefix + "ephemeral-disk"
	MaxPodsAnnotation  = CapacityPrefix + "maxPods"
	GPUTypeAnnotation  = CapacityPrefix + "gpu-type"
	GPUCountAnnotation = CapacityPrefix + "gpu-count"
	LabelsAnnotation   = CapacityPrefix + "labels"
	TaintsAnnotation   = CapacityPrefix + "taints"
	// DRADriverAnnotation and CSIDriverAnnotation describe a template's
	// DRA devices and CSI attach limits upstream; kscale simulates
	// neither, so it reports and ignores them.
	DRADriverAnnotation = CapacityPrefix + "dra-driver"
	CSIDriverAnnotation = CapacityPrefix + "csi-driver"
)

// RevisionAnnotation numbers a MachineSet's revision within its
// MachineDeployment; an older revision with replicas means a rollout.
const RevisionAnnotation = "machinedeployment.clusters.x-k8s.io/revision"

// defaultMaxPods is the pods capacity without the maxPods annotation.
const defaultMaxPods = 110

// Kinds of scalable resources.
const (
	machineDeploymentK = "MachineDeployment"
	machineSetKind     = "MachineSet"
	machinePoolKind    = "MachinePool"
)

// Names are the annotation and label keys of one API group.
type Names struct {
	// MinSize and MaxSize are the node group bounds on scalable resources.
	MinSize, MaxSize string
	// Paused marks a scalable resource the autoscaler leaves alone.
	Paused string
	// DeleteMachine marks the Machine Cluster API removes first.
	DeleteMachine string
	// Machine and ClusterNamespace name a node's Machine (node annotations).
	Machine, ClusterNamespace string
	// ClusterName is the cluster label of Cluster API objects.
	ClusterName string
	// DeploymentName labels a MachineSet with its MachineDeployment.
	DeploymentName string
	// OptionsPrefix starts the per-group autoscaling option annotations.
	OptionsPrefix string
}

// NamesFor returns the keys of API group group.
func NamesFor(group string) Names {
	p := group + "/"
	return Names{
		MinSize:          p + "cluster-api-autoscaler-node-group-min-size",
		MaxSize:          p + "cluster-api-autoscaler-node-group-max-size",
		Paused:           p + "paused",
		DeleteMachine:    p + "delete-machine",
		Machine:          p + "machine",
		ClusterNamespace: p + "cluster-namespace",
		ClusterName:      p + "cluster-name",
		DeploymentName:   p + "deployment-name",
		OptionsPrefix:    p + "autoscaling-options-",
	}
}

// GPULabel is the label of GPU nodes upstream's Cluster API provider
// names (its GPULabel); it does not follow CAPI_GROUP.
const GPULabel = "cluster-api/accelerator"
