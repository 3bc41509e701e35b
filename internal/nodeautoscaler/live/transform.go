package live

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
)

// lastAppliedAnnotation is kubectl's copy of the applied object: often the
// largest annotation, and never read by the node autoscaler.
const lastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// StripUnread is the informers' transform: before an object enters a
// cache it drops what no decision of the node autoscaler reads, so the
// caches hold a fraction of each object. Of every object it drops
// managedFields and kubectl's last-applied-configuration annotation. Of a
// pod's containers (init, app and ephemeral) it keeps the name, resources,
// ports, restart policy and rules and resize policy; commands, arguments,
// environment, mounts, probes, lifecycle hooks, security context and
// images go. Volumes that neither the scheduling filters nor the drain
// rules read (projected, ConfigMap, Secret and downward API volumes: every
// pod's service account token among them) go; emptyDir, hostPath, claims
// and every other source stay. Of a container status it keeps the name,
// readiness, restart count and resources (in-place resize); the state and
// image go. Of a pod's status it keeps the phase, start time, container
// statuses and the conditions a decision reads (PodScheduled, Ready,
// PodResizePending, DisruptionTarget) with their type, status and reason
// (and when a pod turned unschedulable), in a list of their exact length;
// IPs, messages, the nominated node and the QoS class go, and so does the
// pod's security context, which no scheduling filter reads. Of a node
// it drops the list of images on it. Objects the transform does not know
// pass through with only their metadata trimmed.
func StripUnread(obj any) (any, error) {
	if m, err := meta.Accessor(obj); err == nil {
		m.SetManagedFields(nil)
		delete(m.GetAnnotations(), lastAppliedAnnotation)
	}
	switch o := obj.(type) {
	case *corev1.Pod:
		stripPod(o)
	case *corev1.Node:
		o.Status.Images = nil
	}
	return obj, nil
}

func stripPod(p *corev1.Pod) {
	p.Spec.Volumes = slices.DeleteFunc(p.Spec.Volumes, unreadVolume)
	p.Spec.SecurityContext = nil
	p.Status = corev1.PodStatus{Phase: p.Status.Phase, StartTime: p.Status.StartTime,
		Conditions:            readConditions(p.Status.Conditions),
		InitContainerStatuses: p.Status.InitContainerStatuses, ContainerStatuses: p.Status.ContainerStatuses,
		EphemeralContainerStatuses: p.Status.EphemeralContainerStatuses}
	for i := range p.Spec.InitContainers {
		stripContainer(&p.Spec.InitContainers[i])
	}
	for i := range p.Spec.Containers {
		stripContainer(&p.Spec.Containers[i])
	}
	for i := range p.Spec.EphemeralContainers {
		c := &p.Spec.EphemeralContainers[i].EphemeralContainerCommon
		*c = corev1.EphemeralContainerCommon{Name: c.Name}
	}
	for _, st := range [][]corev1.ContainerStatus{p.Status.InitContainerStatuses, p.Status.ContainerStatuses, p.Status.EphemeralContainerStatuses} {
		for i := range st {
			s := &st[i]
			st[i] = corev1.ContainerStatus{Name: s.Name, Ready: s.Ready, RestartCount: s.RestartCount, Started: s.Started,
				Resources: s.Resources, AllocatedResources: s.AllocatedResources}
		}
	}
}

// readConditionTypes are the pod conditions a decision reads: scheduling
// (PodScheduled=False/Unschedulable), PDB health (Ready), in-place resize
// (PodResizePending, read by the scheduler's request helper) and eviction
// in progress (DisruptionTarget).
var readConditionTypes = []corev1.PodConditionType{corev1.PodScheduled, corev1.PodReady, corev1.PodResizePending, corev1.DisruptionTarget}

// readConditions returns the conditions of readConditionTypes in a new
// slice of their exact length, with their messages and times dropped (no
// decision reads them; the transition time of PodScheduled=False stays),
// or nil.
func readConditions(in []corev1.PodCondition) []corev1.PodCondition {
	n := 0
	for _, c := range in {
		if slices.Contains(readConditionTypes, c.Type) {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]corev1.PodCondition, 0, n)
	for _, c := range in {
		if slices.Contains(readConditionTypes, c.Type) {
			kept := corev1.PodCondition{Type: c.Type, Status: c.Status, Reason: c.Reason}
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
				// The unschedulable-pod trigger reads when it turned so.
				kept.LastTransitionTime = c.LastTransitionTime
			}
			out = append(out, kept)
		}
	}
	return out
}

// unreadVolume reports the volume sources no decision reads: they are
// neither local storage, nor claims, nor attachable or zonal disks.
func unreadVolume(v corev1.Volume) bool {
	s := &v.VolumeSource
	return s.Projected != nil || s.ConfigMap != nil || s.Secret != nil || s.DownwardAPI != nil
}

func stripContainer(c *corev1.Container) {
	*c = corev1.Container{Name: c.Name, Resources: c.Resources, Ports: c.Ports, RestartPolicy: c.RestartPolicy,
		RestartPolicyRules: c.RestartPolicyRules, ResizePolicy: c.ResizePolicy}
}
