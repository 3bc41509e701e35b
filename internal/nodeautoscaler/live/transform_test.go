package live

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/scheduling"
)

func TestStripUnread(t *testing.T) {
	res := corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")}}
	always := corev1.ContainerRestartPolicyAlways
	full := func() *corev1.Pod {
		c := corev1.Container{Name: "app", Image: "registry/app:1", Command: []string{"/app"}, Args: []string{"--x"},
			Env: []corev1.EnvVar{{Name: "A", Value: "b"}}, Resources: res, Ports: []corev1.ContainerPort{{ContainerPort: 80, HostPort: 80}},
			VolumeMounts: []corev1.VolumeMount{{Name: "v", MountPath: "/v"}}, LivenessProbe: &corev1.Probe{}}
		side := c
		side.Name, side.RestartPolicy = "sidecar", &always
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", Labels: map[string]string{"app": "x"},
				Annotations:   map[string]string{lastAppliedAnnotation: "{...}", "cluster-autoscaler.kubernetes.io/safe-to-evict": "true"},
				ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}},
			Spec: corev1.PodSpec{InitContainers: []corev1.Container{side}, Containers: []corev1.Container{c},
				Volumes: []corev1.Volume{
					{Name: "token", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{}}},
					{Name: "v", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
					{Name: "conf", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{}}},
					{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "d"}}},
				}, SecurityContext: &corev1.PodSecurityContext{}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.1", HostIP: "192.168.0.1", QOSClass: corev1.PodQOSBurstable,
				Conditions: []corev1.PodCondition{
					{Type: corev1.PodInitialized, Status: corev1.ConditionTrue},
					{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, Message: "bound", LastTransitionTime: metav1.Unix(1, 0)},
					{Type: corev1.ContainersReady, Status: corev1.ConditionTrue},
					{Type: corev1.PodReady, Status: corev1.ConditionTrue},
					{Type: corev1.PodResizePending, Status: corev1.ConditionTrue, Reason: corev1.PodReasonInfeasible},
				},
				ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Image: "registry/app:1",
					Ready: true, Resources: &res, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}},
		}
	}
	p := full()
	if _, err := StripUnread(p); err != nil {
		t.Fatal(err)
	}
	want := full()
	checks := []struct {
		what string
		ok   bool
	}{
		{"managedFields dropped", p.ManagedFields == nil},
		{"last-applied annotation dropped", p.Annotations[lastAppliedAnnotation] == ""},
		{"other annotations kept", p.Annotations["cluster-autoscaler.kubernetes.io/safe-to-evict"] == "true"},
		{"labels kept", p.Labels["app"] == "x"},
		{"emptyDir and claim volumes kept, projected and ConfigMap dropped", len(p.Spec.Volumes) == 2 &&
			p.Spec.Volumes[0].Name == "v" && p.Spec.Volumes[1].Name == "data"},
		{"command, env, probes, mounts, image dropped", p.Spec.Containers[0].Command == nil && p.Spec.Containers[0].Env == nil &&
			p.Spec.Containers[0].LivenessProbe == nil && p.Spec.Containers[0].VolumeMounts == nil && p.Spec.Containers[0].Image == ""},
		{"ports kept", equality.Semantic.DeepEqual(p.Spec.Containers[0].Ports, want.Spec.Containers[0].Ports)},
		{"sidecar restart policy kept", p.Spec.InitContainers[0].RestartPolicy != nil},
		{"status resources kept, state dropped", p.Status.ContainerStatuses[0].Resources != nil && p.Status.ContainerStatuses[0].State.Running == nil},
		{"phase kept", p.Status.Phase == corev1.PodRunning},
		{"read conditions kept in order without messages and times, exact length", len(p.Status.Conditions) == 3 && cap(p.Status.Conditions) == 3 &&
			p.Status.Conditions[0].Type == corev1.PodScheduled && p.Status.Conditions[0].Message == "" &&
			p.Status.Conditions[0].LastTransitionTime.IsZero() &&
			p.Status.Conditions[1].Type == corev1.PodReady &&
			p.Status.Conditions[2].Type == corev1.PodResizePending && p.Status.Conditions[2].Reason == corev1.PodReasonInfeasible},
		{"IPs and QoS class dropped", p.Status.PodIP == "" && p.Status.HostIP == "" && p.Status.QOSClass == ""},
		{"pod security context dropped", p.Spec.SecurityContext == nil},
		{"requests unchanged", equality.Semantic.DeepEqual(scheduling.PodRequests(p), scheduling.PodRequests(want))},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s: no", c.what)
		}
	}
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubelet"}}},
		Status: corev1.NodeStatus{Images: []corev1.ContainerImage{{Names: []string{"registry/app:1"}}},
			Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")}}}
	if _, err := StripUnread(n); err != nil {
		t.Fatal(err)
	}
	if n.ManagedFields != nil || n.Status.Images != nil || n.Status.Allocatable.Cpu().MilliValue() != 4000 {
		t.Errorf("node after StripUnread: %+v", n)
	}
}

// TestStripUnreadKeepsUnschedulableSince checks that the time a pod turned
// unschedulable survives: the unschedulable-pod trigger reads it.
func TestStripUnreadKeepsUnschedulableSince(t *testing.T) {
	since := metav1.Unix(1000, 0)
	p := &corev1.Pod{Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled,
		Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable, LastTransitionTime: since, Message: "0/3 nodes"}}}}
	if _, err := StripUnread(p); err != nil {
		t.Fatal(err)
	}
	if c := p.Status.Conditions; len(c) != 1 || !c[0].LastTransitionTime.Equal(&since) || c[0].Message != "" {
		t.Errorf("conditions after StripUnread: %+v", c)
	}
}
