package scheduling

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
)

// UntoleratedTaint returns the first NoSchedule or NoExecute taint the
// tolerations do not tolerate, as kube-scheduler's TaintToleration filter
// checks it (comparison operators in tolerations are off, as the
// TaintTolerationComparisonOperators gate is alpha). PreferNoSchedule taints never block.
func UntoleratedTaint(taints []corev1.Taint, tolerations []corev1.Toleration) (corev1.Taint, bool) {
	for i := range taints {
		t := &taints[i]
		if t.Effect != corev1.TaintEffectNoSchedule && t.Effect != corev1.TaintEffectNoExecute {
			continue
		}
		if !tolerates(tolerations, t) {
			return *t, true
		}
	}
	return corev1.Taint{}, false
}

func tolerates(tolerations []corev1.Toleration, t *corev1.Taint) bool {
	for i := range tolerations {
		if tolerations[i].ToleratesTaint(klog.Background(), t, false) {
			return true
		}
	}
	return false
}

// ToleratesUnschedulable reports whether the tolerations tolerate the
// node.kubernetes.io/unschedulable:NoSchedule taint, which lets a pod onto a
// cordoned node (kube-scheduler's NodeUnschedulable filter).
func ToleratesUnschedulable(tolerations []corev1.Toleration) bool {
	t := corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}
	return tolerates(tolerations, &t)
}

// ReasonUntoleratedTaint is kube-scheduler's TaintToleration failure reason.
const ReasonUntoleratedTaint = "node(s) had untolerated taint(s)"

// ReasonUnschedulable is kube-scheduler's NodeUnschedulable failure reason.
const ReasonUnschedulable = "node(s) were unschedulable"
