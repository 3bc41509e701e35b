package template

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// KubeProxyCPUMillis is the CPU request of the fake kube-proxy pod that
// upstream's providers put on their templates.
const KubeProxyCPUMillis = 100

// kubeProxyMirrorHash is the mirror annotation value of the fake pod; the
// kubelet would write the static pod's hash there, any value marks it.
const kubeProxyMirrorHash = "1234567890abcdef"

// systemCritical is the base priority of the system-critical classes, the priority upstream gives the fake pod.
const systemCritical int32 = 2000000000

// PodOptions choose the pods a template node starts with.
type PodOptions struct {
	// RequestsFromLimits is --daemonset-requests-from-limits (see
	// DaemonSetPods).
	RequestsFromLimits bool
	// KubeProxy is --template-kube-proxy-pod: add the fake kube-proxy
	// mirror pod upstream 1.36's providers add to every template they build.
	KubeProxy bool
}

// Pods returns the pods a fresh node of group starts with: the pods the
// DaemonSets would run on node and, with o.KubeProxy, the fake kube-proxy
// pod (even beside a kube-proxy DaemonSet's pod, as upstream keeps both).
func Pods(node *corev1.Node, group string, daemonSets []*appsv1.DaemonSet, o PodOptions) []*corev1.Pod {
	pods := DaemonSetPods(node, daemonSets, o.RequestsFromLimits)
	if o.KubeProxy {
		pods = append(pods, KubeProxyPod(group, node.Name))
	}
	return pods
}

// KubeProxyPod is the static kube-proxy pod upstream's providers assume on
// every node they describe: a running mirror pod in kube-system labelled
// component=kube-proxy, requesting KubeProxyCPUMillis of CPU and nothing
// else, bound to nodeName.
func KubeProxyPod(group, nodeName string) *corev1.Pod {
	prio := systemCritical
	name := "kube-proxy-" + group + "-" + nodeName
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: metav1.NamespaceSystem, UID: types.UID("template-" + name),
			Labels: map[string]string{"component": "kube-proxy", "tier": "node"},
			Annotations: map[string]string{
				"kubernetes.io/config.source": "file",
				corev1.MirrorPodAnnotationKey: kubeProxyMirrorHash,
			},
		},
		Spec: corev1.PodSpec{
			NodeName: nodeName,
			Priority: &prio,
			Containers: []corev1.Container{{Name: "kube-proxy", Image: "kubeproxy", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: *resource.NewMilliQuantity(KubeProxyCPUMillis, resource.DecimalSI)},
			}}},
		},
		Status: corev1.PodStatus{Phase: corev1.PodRunning,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}},
	}
}
