package live

import (
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kscale/kscale/internal/nodeautoscaler/scaledown"
)

// controllers is the view's scaledown.ControllerLookup over its
// ReplicaSets, StatefulSets, Jobs and ReplicationControllers; the index is
// built on the first question.
type controllers struct {
	rs   []*appsv1.ReplicaSet
	ss   []*appsv1.StatefulSet
	jobs []*batchv1.Job
	rcs  []*corev1.ReplicationController

	once  sync.Once
	index map[controllerKey]controllerInfo
}

var _ scaledown.ControllerLookup = (*controllers)(nil)

func newControllers(rs []*appsv1.ReplicaSet, ss []*appsv1.StatefulSet, jobs []*batchv1.Job, rcs []*corev1.ReplicationController) *controllers {
	return &controllers{rs: rs, ss: ss, jobs: jobs, rcs: rcs}
}

// controllerKey names one controller object.
type controllerKey struct {
	group, kind, namespace, name string
}

// controllerInfo is what the drain rules read of one controller.
type controllerInfo struct {
	uid      types.UID
	replicas *int32
}

// ControllerExists implements scaledown.ControllerLookup. Kinds the view
// does not hold are taken to exist.
func (c *controllers) ControllerExists(namespace string, ref *metav1.OwnerReference) bool {
	if !scaledown.IsCheckedController(ref) {
		return true
	}
	_, ok := c.find(namespace, ref)
	return ok
}

// DesiredReplicas implements scaledown.ControllerLookup: spec.replicas of
// the ReplicaSet or ReplicationController ref names.
func (c *controllers) DesiredReplicas(namespace string, ref *metav1.OwnerReference) (int32, bool) {
	info, ok := c.find(namespace, ref)
	if !ok || info.replicas == nil {
		return 0, false
	}
	return *info.replicas, true
}

// find finds the checked controller ref names, with its UID when ref
// carries one.
func (c *controllers) find(namespace string, ref *metav1.OwnerReference) (controllerInfo, bool) {
	c.once.Do(c.build)
	info, ok := c.index[controllerKey{scaledown.APIGroup(ref.APIVersion), ref.Kind, namespace, ref.Name}]
	return info, ok && (ref.UID == "" || ref.UID == info.uid)
}

func (c *controllers) build() {
	m := make(map[controllerKey]controllerInfo, len(c.rs)+len(c.ss)+len(c.jobs)+len(c.rcs))
	add := func(group, kind string, o *metav1.ObjectMeta, replicas *int32) {
		m[controllerKey{group, kind, o.Namespace, o.Name}] = controllerInfo{uid: o.UID, replicas: replicas}
	}
	for _, o := range c.rs {
		add("apps", "ReplicaSet", &o.ObjectMeta, o.Spec.Replicas)
	}
	for _, o := range c.ss {
		add("apps", "StatefulSet", &o.ObjectMeta, nil)
	}
	for _, o := range c.jobs {
		add("batch", "Job", &o.ObjectMeta, nil)
	}
	for _, o := range c.rcs {
		add("", "ReplicationController", &o.ObjectMeta, o.Spec.Replicas)
	}
	c.index = m
}
