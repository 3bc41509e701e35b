package actuation

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
)

// Cluster is what the actuator needs from Kubernetes.
type Cluster interface {
	// AddTaint adds the taint to the node unless a taint with its key is
	// there already.
	AddTaint(ctx context.Context, node string, taint corev1.Taint) error
	// RemoveTaints removes the taints with the given keys from the node; a
	// missing node or taint is not an error.
	RemoveTaints(ctx context.Context, node string, keys ...string) error
	// EvictPod asks the eviction API to evict the pod, with a precondition
	// on its UID and the given grace period. It returns an error matching
	// ErrEvictionRefused when a PodDisruptionBudget forbids it now, and
	// ErrPodGone when the pod no longer exists (or has another UID).
	EvictPod(ctx context.Context, pod *corev1.Pod, gracePeriodSeconds int64) error
	// GetPod returns the pod, or an error matching ErrPodGone.
	GetPod(ctx context.Context, namespace, name string) (*corev1.Pod, error)
	// PodsOnNode lists the pods bound to the node.
	PodsOnNode(ctx context.Context, node string) ([]*corev1.Pod, error)
	// Cordon sets the node's spec.unschedulable; a missing node is an
	// error when cordoning and not when uncordoning.
	Cordon(ctx context.Context, node string, unschedulable bool) error
	// GetNode returns a fresh copy of the node.
	GetNode(ctx context.Context, node string) (*corev1.Node, error)
}

// Deleter deletes cloud instances; cloudprovider.Provider implements it.
type Deleter interface {
	// DeleteInstances terminates the instances and lowers the group's target.
	DeleteInstances(ctx context.Context, groupID string, instanceIDs []string) error
}

var (
	// ErrEvictionRefused means the eviction would violate a PodDisruptionBudget now.
	ErrEvictionRefused = errors.New("eviction refused by a PodDisruptionBudget")
	// ErrPodGone means the pod does not exist any more (or was replaced).
	ErrPodGone = errors.New("pod is gone")
)

// IsEvictionRefused reports whether err means a PodDisruptionBudget refused the eviction.
func IsEvictionRefused(err error) bool { return errors.Is(err, ErrEvictionRefused) }

// IsPodGone reports whether err means the pod no longer exists.
func IsPodGone(err error) bool { return errors.Is(err, ErrPodGone) }
