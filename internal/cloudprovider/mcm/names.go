package mcm

import "k8s.io/apimachinery/pkg/runtime/schema"

// GroupVersion is MCM's API.
var GroupVersion = schema.GroupVersion{Group: "machine.sapcloud.io", Version: "v1alpha1"}

// Resources of MCM's API.
var (
	MachineDeployments = GroupVersion.WithResource("machinedeployments")
	MachineSets        = GroupVersion.WithResource("machinesets")
	Machines           = GroupVersion.WithResource("machines")
	MachineClasses     = GroupVersion.WithResource("machineclasses")
	// Deployments is where MCM's own Deployment is read from.
	Deployments = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
)

// MCM's annotations and labels (MCM pkg/util/provider/machineutils and
// pkg/apis/machine/v1alpha1).
const (
	// PriorityAnnotation orders a MachineSet's Machines for deletion:
	// lower first, default "3"; MCM sets "1" on Machines listed in
	// TriggerDeletionAnnotation.
	PriorityAnnotation = "machinepriority.machine.sapcloud.io"
	// TriggerDeletionAnnotation on a MachineDeployment lists the Machines
	// a scaler chose for removal, "<machine>~<RFC 3339 time>,...".
	TriggerDeletionAnnotation = "node.machine.sapcloud.io/trigger-deletion-by-mcm"
	// ReplicaChangeAnnotation on a MachineDeployment is when a scaler last
	// changed its replicas (RFC 3339).
	ReplicaChangeAnnotation = "machine.sapcloud.io/last-deployment-replica-change-by-scaler-time"
	// MarkedForDeletionAnnotation is when MCM marked a Machine priority 1.
	MarkedForDeletionAnnotation = "machine.sapcloud.io/marked-for-deletion-time"
	// PreserveAnnotation on a Machine (or its Node) keeps it: now,
	// when-failed, auto-preserved; "false" stops the preservation.
	PreserveAnnotation = "node.machine.sapcloud.io/preserve"
	// NodeLabel on a Machine names its Node once it joined.
	NodeLabel = "node"
	// DeploymentNameLabel is Gardener's label selecting a
	// MachineDeployment's Machines (also its template label).
	DeploymentNameLabel = "name"
	// PoolLabel names a node's Gardener worker pool.
	PoolLabel = "worker.gardener.cloud/pool"
	// ScaleDownDisabledAnnotation on a Node keeps it out of scale-down.
	ScaleDownDisabledAnnotation = "cluster-autoscaler.kubernetes.io/scale-down-disabled"
)

// DeploymentName is the name of MCM's Deployment in the control
// namespace; the provider halts while none of its replicas is available.
const DeploymentName = "machine-controller-manager"

// RequestedPrefix starts the provider id of a Machine without a Node, as
// upstream's requested://<machine>; no node carries such an id.
const RequestedPrefix = "requested://"

// placeholderPrefix starts placeholder ids (replicas without a Machine).
const placeholderPrefix = "mcm:///"

// Machine phases the provider tells apart (MCM machine_types.go; the
// others are Pending, Available, Running, Unknown and the in-place update
// phases).
const (
	phaseTerminating      = "Terminating"
	phaseFailed           = "Failed"
	phaseCrashLoopBackOff = "CrashLoopBackOff"
)

// Last operation fields (MCM machine_types.go, machinecodes/codes).
const (
	operationCreate = "Create"
	operationDelete = "Delete"
	stateFailed     = "Failed"
	// CodeResourceExhausted is MCM's error code of a stock-out or quota:
	// the out-of-resources class.
	CodeResourceExhausted = "ResourceExhausted"
	// CodeCreationFailed names a failed creation without an error code.
	CodeCreationFailed = "CreationFailed"
)

// GPULabel is the label of GPU nodes gardener/autoscaler's MCM provider
// names (its GPULabel).
const GPULabel = "gardener.cloud/accelerator"
