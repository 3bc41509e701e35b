package scaledown

import (
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Annotations and well-known names the drain rules read.
const (
	// SafeToEvictAnnotation set to "false" makes a pod block its node; "true"
	// makes any controller-less, local-storage or kube-system pod movable.
	SafeToEvictAnnotation = "cluster-autoscaler.kubernetes.io/safe-to-evict"
	// SafeToEvictLocalVolumesAnnotation lists (comma-separated) the pod's
	// local volumes that may be lost.
	SafeToEvictLocalVolumesAnnotation = "cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes"
	// ScaleDownDisabledAnnotation set to "true" on a node keeps it.
	ScaleDownDisabledAnnotation = "cluster-autoscaler.kubernetes.io/scale-down-disabled"
	// MirrorPodAnnotation marks static (mirror) pods.
	MirrorPodAnnotation = "kubernetes.io/config.mirror"
	// DaemonSetPodAnnotation set to "true" makes a pod count as a DaemonSet
	// pod whatever its owner, as upstream.
	DaemonSetPodAnnotation = "cluster-autoscaler.kubernetes.io/daemonset-pod"
	// safeToEvictOnCompletion keeps the node until the pod finished.
	safeToEvictOnCompletion = "on-completion"
	systemNamespace         = "kube-system"
)

// ReasonMinReplicas is the reason of a node kept because a pod's
// ReplicaSet or ReplicationController wants fewer replicas than
// --min-replica-count (upstream's MinReplicasReached).
const ReasonMinReplicas Reason = "MinReplicasReached"

// podKind is how the drain rules see one pod.
type podKind int

const (
	// podIgnored pods stay: DaemonSet, mirror, finished or terminating pods.
	podIgnored podKind = iota
	// podMovable pods are evicted and rescheduled elsewhere.
	podMovable
)

// classify decides whether the pod is ignored, movable or blocks the node
// (the returned Reason is non-empty then). covered reports whether a
// PodDisruptionBudget selects the pod; controllers, when not nil, answers
// about the pod's controller; now is the loop time.
func (c *Config) classify(pod *corev1.Pod, covered bool, controllers ControllerLookup, now time.Time) (podKind, Reason) {
	if isIgnored(pod) {
		return podIgnored, ""
	}
	if c.SkipNodesWithJobPods && isJobPod(pod) {
		return podMovable, ReasonJobPod
	}
	switch pod.Annotations[SafeToEvictAnnotation] {
	case "true":
		return podMovable, ""
	case "false":
		return podMovable, ReasonNotSafeToEvict
	case safeToEvictOnCompletion:
		// Finished pods were ignored above; a running one keeps its node.
		return podMovable, ReasonOnCompletionPod
	}
	ref := controllerOf(pod)
	if ref == nil {
		return podMovable, ReasonBarePod
	}
	if r := c.controllerReason(pod, ref, controllers); r != "" {
		return podMovable, r
	}
	if c.SkipNodesWithSystemPods && pod.Namespace == systemNamespace && !covered && c.systemPodBlocks(pod, now) {
		return podMovable, ReasonSystemPod
	}
	if c.SkipNodesWithLocalStorage && hasUnsafeLocalStorage(pod) {
		return podMovable, ReasonLocalStorage
	}
	return podMovable, ""
}

// controllerReason applies --skip-nodes-with-custom-controller-pods and
// --min-replica-count as upstream's replicated rule does: with the flag
// on, a ReplicaSet, StatefulSet, Job or ReplicationController must exist
// (and a ReplicaSet or ReplicationController must want at least
// MinReplicaCount replicas), and a pod of any other controller kind counts
// as not replicated (ReasonBarePod, upstream's NotReplicated). With the
// flag off every controller counts as replicated and nothing is looked up.
func (c *Config) controllerReason(pod *corev1.Pod, ref *metav1.OwnerReference, controllers ControllerLookup) Reason {
	if !c.SkipNodesWithCustomControllerPods {
		return ""
	}
	if !IsCheckedController(ref) {
		return ReasonBarePod
	}
	if controllerMissing(controllers, pod, ref) {
		return ReasonControllerNotFound
	}
	if c.MinReplicaCount > 0 && controllers != nil && hasReplicaCount(ref) {
		if n, ok := controllers.DesiredReplicas(pod.Namespace, ref); ok && int(n) < c.MinReplicaCount {
			return ReasonMinReplicas
		}
	}
	return ""
}

// systemPodBlocks reports whether an unprotected kube-system pod still
// blocks its node: until it is --blocking-system-pod-distruption-timeout
// old, counted from its creation.
func (c *Config) systemPodBlocks(pod *corev1.Pod, now time.Time) bool {
	created := pod.CreationTimestamp.Time
	if created.IsZero() {
		return true // unknown age: as young as can be
	}
	return now.Sub(created) < c.BlockingSystemPodTimeout
}

// IsIgnored reports pods that neither move nor block a node's removal:
// DaemonSet and mirror pods, finished pods and pods already being deleted.
// A node whose other pods are all gone counts as empty.
func IsIgnored(pod *corev1.Pod) bool { return isIgnored(pod) }

func isIgnored(pod *corev1.Pod) bool {
	if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return true
	}
	if pod.DeletionTimestamp != nil {
		return true
	}
	if _, ok := pod.Annotations[MirrorPodAnnotation]; ok {
		return true
	}
	return isDaemonSetPod(pod)
}

// IsDaemonSetPod reports pods a DaemonSet controls or that are annotated
// DaemonSetPodAnnotation=true.
func IsDaemonSetPod(pod *corev1.Pod) bool { return isDaemonSetPod(pod) }

// IsMirrorPod reports static pods' mirror pods (MirrorPodAnnotation).
func IsMirrorPod(pod *corev1.Pod) bool {
	_, ok := pod.Annotations[MirrorPodAnnotation]
	return ok
}

func isDaemonSetPod(pod *corev1.Pod) bool {
	if pod.Annotations[DaemonSetPodAnnotation] == "true" {
		return true
	}
	owner := controllerOf(pod)
	return owner != nil && owner.Kind == "DaemonSet"
}

// controllerOf returns the pod's controller reference without copying it.
func controllerOf(pod *corev1.Pod) *metav1.OwnerReference {
	for i := range pod.OwnerReferences {
		if c := pod.OwnerReferences[i].Controller; c != nil && *c {
			return &pod.OwnerReferences[i]
		}
	}
	return nil
}

// isJobPod reports pods owned by a batch Job (fork rule: unmovable with
// --skip-nodes-with-job-pods).
func isJobPod(pod *corev1.Pod) bool {
	for _, o := range pod.OwnerReferences {
		if o.Kind == "Job" && strings.HasPrefix(o.APIVersion, "batch/") {
			return true
		}
	}
	return false
}

// hasUnsafeLocalStorage reports an emptyDir or hostPath volume not listed in
// the safe-to-evict-local-volumes annotation.
func hasUnsafeLocalStorage(pod *corev1.Pod) bool {
	safe := map[string]bool{}
	for _, v := range strings.Split(pod.Annotations[SafeToEvictLocalVolumesAnnotation], ",") {
		if v = strings.TrimSpace(v); v != "" {
			safe[v] = true
		}
	}
	for _, v := range pod.Spec.Volumes {
		if (v.EmptyDir != nil || v.HostPath != nil) && !safe[v.Name] {
			return true
		}
	}
	return false
}
