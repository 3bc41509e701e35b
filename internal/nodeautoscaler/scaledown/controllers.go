package scaledown

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ControllerLookup finds pod controllers in the loop's view of the
// cluster. The drain rules ask it only about the kinds whose existence
// decides whether a pod is replicated: ReplicaSet, StatefulSet and Job
// (with their API groups) and ReplicationController.
type ControllerLookup interface {
	// ControllerExists reports whether the object ref names exists in the
	// namespace: same kind, API group and name and, when ref carries a
	// UID, that UID (a recreated object of the same name does not own the
	// pod).
	ControllerExists(namespace string, ref *metav1.OwnerReference) bool
	// DesiredReplicas returns spec.replicas of the ReplicaSet or
	// ReplicationController ref names (matched as by ControllerExists);
	// ok is false when the object is not found or sets no replica count.
	DesiredReplicas(namespace string, ref *metav1.OwnerReference) (replicas int32, ok bool)
}

// checkedControllers are the controller kinds, by API group, whose
// existence the drain rules check; other controllers (custom ones) are
// taken as replicated.
var checkedControllers = map[string]string{
	"ReplicaSet":            "apps",
	"StatefulSet":           "apps",
	"Job":                   "batch",
	"ReplicationController": "",
}

// IsCheckedController reports whether the drain rules look ref up: a
// ReplicaSet, StatefulSet, Job or ReplicationController of its API group.
func IsCheckedController(ref *metav1.OwnerReference) bool {
	group, ok := checkedControllers[ref.Kind]
	return ok && APIGroup(ref.APIVersion) == group
}

// hasReplicaCount reports the kinds --min-replica-count applies to: a
// ReplicaSet (apps) or a ReplicationController (core).
func hasReplicaCount(ref *metav1.OwnerReference) bool {
	return IsCheckedController(ref) && (ref.Kind == "ReplicaSet" || ref.Kind == "ReplicationController")
}

// APIGroup returns the group of an apiVersion ("apps/v1" -> "apps",
// "v1" -> "").
func APIGroup(apiVersion string) string {
	if i := strings.IndexByte(apiVersion, '/'); i >= 0 {
		return apiVersion[:i]
	}
	return ""
}

// controllerMissing reports whether the pod's controller is a checked
// kind that the lookup does not find. A nil lookup finds everything.
func controllerMissing(lookup ControllerLookup, pod *corev1.Pod, ref *metav1.OwnerReference) bool {
	return lookup != nil && IsCheckedController(ref) && !lookup.ControllerExists(pod.Namespace, ref)
}

// EveryControllerExists is the ControllerLookup of a cluster in which every
// pod's controller exists and no replica count is known: the offline world,
// whose scenario format has no pod without a live workload. It decides as no
// lookup does.
type EveryControllerExists struct{}

// ControllerExists implements ControllerLookup: every controller exists.
func (EveryControllerExists) ControllerExists(string, *metav1.OwnerReference) bool { return true }

// DesiredReplicas implements ControllerLookup: no replica count is known.
func (EveryControllerExists) DesiredReplicas(string, *metav1.OwnerReference) (int32, bool) {
	return 0, false
}
