package scenario

import (
	corev1 "k8s.io/api/core/v1"
)

// Volume binding modes a StorageClass may have (storage.k8s.io/v1).
const (
	BindingImmediate            = "Immediate"
	BindingWaitForFirstConsumer = "WaitForFirstConsumer"
)

// StorageClass is a storage.k8s.io/v1 StorageClass: how the claims of the
// class bind and where their volumes may be provisioned.
type StorageClass struct {
	// Name is the class name.
	Name string `yaml:"name"`
	// Provisioner provisions the class's volumes;
	// kubernetes.io/no-provisioner for static volumes only.
	Provisioner string `yaml:"provisioner"`
	// VolumeBindingMode is Immediate (the default, as in the API) or
	// WaitForFirstConsumer.
	VolumeBindingMode string `yaml:"volumeBindingMode"`
	// AllowedTopologies restrict where volumes are provisioned
	// (corev1.TopologySelectorTerms).
	AllowedTopologies K8s[[]corev1.TopologySelectorTerm] `yaml:"allowedTopologies"`
}

// PersistentVolume is a volume of the cluster: bound to a claim (the
// claim's volume names it) or available to late-binding claims.
type PersistentVolume struct {
	// Name is the volume name.
	Name string `yaml:"name"`
	// StorageClass is the volume's class name ("" for none).
	StorageClass string `yaml:"storageClass"`
	// Capacity is the volume's size.
	Capacity Size `yaml:"capacity"`
	// AccessModes default to [ReadWriteOnce].
	AccessModes []corev1.PersistentVolumeAccessMode `yaml:"accessModes"`
	// NodeAffinity is the volume's required node selector
	// (corev1.NodeSelector): the nodes its pods may run on.
	NodeAffinity *K8s[corev1.NodeSelector] `yaml:"nodeAffinity"`
	// Labels are the volume's labels; the zone and region ones
	// (topology.kubernetes.io/zone, ...) restrict its pods' nodes too.
	Labels map[string]string `yaml:"labels"`
}

// PersistentVolumeClaim is a claim of the cluster. A workload's pods
// mount claims through their pod volumes or the workload's claim
// templates; a listed claim is used as it is, and the simulation binds
// only the claims it creates.
type PersistentVolumeClaim struct {
	// Name is the claim name.
	Name string `yaml:"name"`
	// Namespace defaults to "default".
	Namespace string `yaml:"namespace"`
	ClaimSpec `yaml:",inline"`
	// Volume is the volume the claim is bound to; empty for an unbound
	// claim.
	Volume string `yaml:"volume,omitempty"`
}

// ClaimSpec is what a claim, a claim template and a generic ephemeral
// volume request.
type ClaimSpec struct {
	// StorageClass is the class name; empty for a claim without class
	// (which binds immediately, to a volume without class).
	StorageClass string `yaml:"storageClass,omitempty"`
	// Size is the requested storage.
	Size Size `yaml:"size"`
	// AccessModes default to [ReadWriteOnce].
	AccessModes []corev1.PersistentVolumeAccessMode `yaml:"accessModes,omitempty"`
}

// ClaimTemplate is a StatefulSet's volume claim template: pod <pod> of the
// workload mounts claim <name>-<pod> as volume <name>, created unbound
// when it does not exist.
type ClaimTemplate struct {
	// Name is the template (and pod volume) name.
	Name      string `yaml:"name"`
	ClaimSpec `yaml:",inline"`
}

// Access modes a claim or volume may list.
var accessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce, corev1.ReadOnlyMany,
	corev1.ReadWriteMany, corev1.ReadWriteOncePod}

// Modes returns the access modes, [ReadWriteOnce] when none is given.
func (c ClaimSpec) Modes() []corev1.PersistentVolumeAccessMode {
	if len(c.AccessModes) == 0 {
		return []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}
	}
	return c.AccessModes
}
