package scheduling

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"
)

// Scalar is an amount of one extended or hugepages resource.
type Scalar struct {
	// Name is the resource name, for example nvidia.com/gpu.
	Name corev1.ResourceName
	// Value is the amount in the resource's base unit.
	Value int64
}

// Resources is a set of resource amounts in the units kube-scheduler
// compares: millicores, bytes and counts.
type Resources struct {
	// MilliCPU is the CPU amount in millicores.
	MilliCPU int64
	// Memory is the memory amount in bytes.
	Memory int64
	// EphemeralStorage is the ephemeral storage amount in bytes.
	EphemeralStorage int64
	// Pods is the number of pods (allocatable) or 1 per pod (requested).
	Pods int64
	// Scalars holds every other resource (extended resources, hugepages).
	Scalars []Scalar
}

// IsZero reports whether no CPU, memory, ephemeral storage or scalar
// resource is set (Pods is ignored).
func (r *Resources) IsZero() bool {
	if r.MilliCPU != 0 || r.Memory != 0 || r.EphemeralStorage != 0 {
		return false
	}
	for _, s := range r.Scalars {
		if s.Value != 0 {
			return false
		}
	}
	return true
}

// Scalar returns the amount of the named scalar resource.
func (r *Resources) Scalar(name corev1.ResourceName) int64 {
	for _, s := range r.Scalars {
		if s.Name == name {
			return s.Value
		}
	}
	return 0
}

// Add adds o to r, times n.
func (r *Resources) Add(o *Resources, n int64) {
	r.MilliCPU += o.MilliCPU * n
	r.Memory += o.Memory * n
	r.EphemeralStorage += o.EphemeralStorage * n
	r.Pods += o.Pods * n
	for _, s := range o.Scalars {
		r.addScalar(s.Name, s.Value*n)
	}
}

func (r *Resources) addScalar(name corev1.ResourceName, v int64) {
	for i := range r.Scalars {
		if r.Scalars[i].Name == name {
			r.Scalars[i].Value += v
			return
		}
	}
	r.Scalars = append(r.Scalars, Scalar{Name: name, Value: v})
}

// Clone returns a copy of r that shares no memory with it.
func (r Resources) Clone() Resources {
	if r.Scalars != nil {
		r.Scalars = append([]Scalar(nil), r.Scalars...)
	}
	return r
}

// FromList converts a ResourceList into Resources. Pods is taken from the
// "pods" entry.
func FromList(list corev1.ResourceList) Resources {
	var r Resources
	for name, q := range list {
		switch name {
		case corev1.ResourceCPU:
			r.MilliCPU = q.MilliValue()
		case corev1.ResourceMemory:
			r.Memory = q.Value()
		case corev1.ResourceEphemeralStorage:
			r.EphemeralStorage = q.Value()
		case corev1.ResourcePods:
			r.Pods = q.Value()
		default:
			if isScalarResource(name) {
				r.addScalar(name, q.Value())
			}
		}
	}
	return r
}

// isScalarResource reports whether kube-scheduler tracks the resource as a
// scalar: extended resources (a domain-prefixed name outside kubernetes.io),
// hugepages, attachable-volume limits and other kubernetes.io-prefixed names.
func isScalarResource(name corev1.ResourceName) bool {
	s := string(name)
	if strings.HasPrefix(s, corev1.ResourceHugePagesPrefix) || strings.HasPrefix(s, corev1.ResourceAttachableVolumesPrefix) {
		return true
	}
	domain, _, ok := strings.Cut(s, "/")
	return ok && domain != "" && !strings.HasPrefix(s, corev1.ResourceDefaultNamespacePrefix+"requests.")
}

// PodRequests returns the pod's effective requests as kube-scheduler's
// NodeResourcesFit sees them: the larger of the init-container peak and the
// sum of app containers plus sidecars (restartable init containers),
// pod-level requests when set, plus pod overhead. Pods is 1. A container
// being resized in place counts with the larger of its spec and its
// actuated or allocated requests (only those while the resize is
// infeasible), as InPlacePodVerticalScaling (GA) has the scheduler do.
func PodRequests(pod *corev1.Pod) Resources {
	useStatus := len(pod.Status.ContainerStatuses) > 0 || len(pod.Status.InitContainerStatuses) > 0
	if !useStatus && len(pod.Spec.Containers) == 1 && len(pod.Spec.InitContainers) == 0 && pod.Spec.Overhead == nil &&
		pod.Spec.Resources == nil {
		// The common single-container pod: its requests are the
		// container's, without the helper's intermediate lists.
		r := FromList(pod.Spec.Containers[0].Resources.Requests)
		r.Pods = 1
		return r
	}
	r := FromList(resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{UseStatusResources: useStatus}))
	r.Pods = 1
	return r
}

// NodeAllocatable returns the node's allocatable resources.
func NodeAllocatable(node *corev1.Node) Resources {
	return FromList(node.Status.Allocatable)
}

// InsufficientReason returns kube-scheduler's reason for the first resource
// in which req does not fit into allocatable minus requested, or "" when
// it fits. Resources the pod does not request are not checked, except the
// pod count.
func InsufficientReason(req, requested, allocatable *Resources) string {
	if requested.Pods+1 > allocatable.Pods {
		return "Too many pods"
	}
	if req.MilliCPU > 0 && req.MilliCPU > allocatable.MilliCPU-requested.MilliCPU {
		return "Insufficient cpu"
	}
	if req.Memory > 0 && req.Memory > allocatable.Memory-requested.Memory {
		return "Insufficient memory"
	}
	if req.EphemeralStorage > 0 && req.EphemeralStorage > allocatable.EphemeralStorage-requested.EphemeralStorage {
		return "Insufficient ephemeral-storage"
	}
	for _, s := range req.Scalars {
		if s.Value > 0 && s.Value > allocatable.Scalar(s.Name)-requested.Scalar(s.Name) {
			return "Insufficient " + string(s.Name)
		}
	}
	return ""
}

// MaxFit returns how many more copies of req fit into allocatable minus
// requested, counting every resource req sets and the pod count.
func MaxFit(req, requested, allocatable *Resources) int64 {
	n := allocatable.Pods - requested.Pods
	n = minFit(n, req.MilliCPU, allocatable.MilliCPU-requested.MilliCPU)
	n = minFit(n, req.Memory, allocatable.Memory-requested.Memory)
	n = minFit(n, req.EphemeralStorage, allocatable.EphemeralStorage-requested.EphemeralStorage)
	for _, s := range req.Scalars {
		n = minFit(n, s.Value, allocatable.Scalar(s.Name)-requested.Scalar(s.Name))
	}
	if n < 0 {
		return 0
	}
	return n
}

func minFit(n, req, free int64) int64 {
	if req <= 0 {
		return n
	}
	if free < 0 {
		return 0
	}
	return min(n, free/req)
}
