package scheduling

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
)

// ReasonVolumeNodeConflict is kube-scheduler's VolumeBinding reason when a
// bound PersistentVolume's node affinity excludes the node.
const ReasonVolumeNodeConflict = "node(s) didn't match PersistentVolume's node affinity"

// ReasonVolumePVNotExist is kube-scheduler's VolumeBinding reason when a
// claim is bound to a PersistentVolume that does not exist.
const ReasonVolumePVNotExist = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"

// ReasonVolumeUnboundImmediate is kube-scheduler's VolumeBinding reason for
// an unbound claim whose storage class binds immediately (or has no class).
const ReasonVolumeUnboundImmediate = "pod has unbound immediate PersistentVolumeClaims"

// ReasonVolumePVCNotFound is the reason for a pod whose claim does not exist.
const ReasonVolumePVCNotFound = "persistentvolumeclaim not found"

// PVMatchesNode reports whether the PersistentVolume's required node
// affinity admits the node. A volume without node affinity matches every
// node; an affinity that does not parse matches none.
func PVMatchesNode(pv *corev1.PersistentVolume, node *corev1.Node) bool {
	if pv.Spec.NodeAffinity == nil || pv.Spec.NodeAffinity.Required == nil {
		return true
	}
	sel, err := nodeaffinity.NewNodeSelector(pv.Spec.NodeAffinity.Required)
	if err != nil {
		return false
	}
	return sel.Match(node)
}

// PodClaimNames returns the names of the PersistentVolumeClaims the pod
// mounts, in its namespace.
func PodClaimNames(pod *corev1.Pod) []string {
	var out []string
	for i := range pod.Spec.Volumes {
		v := &pod.Spec.Volumes[i]
		switch {
		case v.PersistentVolumeClaim != nil:
			out = append(out, v.PersistentVolumeClaim.ClaimName)
		case v.Ephemeral != nil:
			out = append(out, pod.Name+"-"+v.Name)
		}
	}
	return out
}
