package recommendation

import corev1 "k8s.io/api/core/v1"

// ActualResources returns the requests and limits container i of pod runs
// with: those the kubelet reports in status.containerStatuses[].resources
// when it reports them (during and after an in-place resize they may
// differ from the spec), else the spec's. Callers must not modify them.
func ActualResources(pod *corev1.Pod, i int) corev1.ResourceRequirements {
	c := &pod.Spec.Containers[i]
	for j := range pod.Status.ContainerStatuses {
		if cs := &pod.Status.ContainerStatuses[j]; cs.Name == c.Name && cs.Resources != nil {
			return *cs.Resources
		}
	}
	return c.Resources
}
