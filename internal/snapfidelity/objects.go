package snapfidelity

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Objects are the Kubernetes objects of a cluster's workloads; the nodes
// come from the cloud (the kwok provider mirrors the groups' machines).
type Objects struct {
	// ReplicaSets, StatefulSets and ReplicationControllers own the pods
	// of ReplicaSet workloads.
	ReplicaSets []*appsv1.ReplicaSet
	// StatefulSets own pods of workloads with OwnerStatefulSet.
	StatefulSets []*appsv1.StatefulSet
	// RCs own pods of workloads with OwnerRC.
	RCs []*corev1.ReplicationController
	// Pods are bound (spec.nodeName set) or left to the scheduler.
	Pods []*corev1.Pod
	// PDBs select the pods of one workload each.
	PDBs []*policyv1.PodDisruptionBudget
}

// ObjectsOf builds the objects of c's workloads.
func ObjectsOf(c *Cluster) Objects {
	var o Objects
	for _, w := range c.Workloads {
		sel := map[string]string{"app": w.Name}
		var owner []metav1.OwnerReference
		if w.Kind == KindReplicaSet {
			owner = []metav1.OwnerReference{o.addController(w, sel)}
		}
		for i := range len(w.Bound) + w.Pending {
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: w.Namespace, Name: fmt.Sprintf("%s-%d", w.Name, i+1),
				Labels: sel, OwnerReferences: owner}, Spec: podSpec(w)}
			if i < len(w.Bound) {
				p.Spec.NodeName = w.Bound[i]
			}
			if i < w.Finished {
				p.Annotations = map[string]string{annotationFinished: "true"}
			}
			o.Pods = append(o.Pods, p)
		}
		if w.MaxUnavailable != nil {
			o.PDBs = append(o.PDBs, &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: w.Namespace, Name: w.Name},
				Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: ptr.To(intstr.FromInt32(int32(*w.MaxUnavailable))),
					Selector: &metav1.LabelSelector{MatchLabels: sel}}})
		}
	}
	return o
}

// addController adds the workload's controller object, when it has one,
// and returns the pods' owner reference; the harness fills in the UID of
// the created object (a missing or custom owner keeps a made-up one).
func (o *Objects) addController(w Workload, sel map[string]string) metav1.OwnerReference {
	replicas := ptr.To(int32(len(w.Bound) + w.Pending))
	meta := metav1.ObjectMeta{Namespace: w.Namespace, Name: w.Name}
	tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: sel}, Spec: podSpec(w)}
	ref := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: w.Name, UID: types.UID("uid-" + w.Namespace + "-" + w.Name),
		Controller: ptr.To(true)}
	switch w.Owner {
	case OwnerStatefulSet:
		ref.Kind = "StatefulSet"
		o.StatefulSets = append(o.StatefulSets, &appsv1.StatefulSet{ObjectMeta: meta,
			Spec: appsv1.StatefulSetSpec{Replicas: replicas, Selector: &metav1.LabelSelector{MatchLabels: sel}, Template: tmpl}})
	case OwnerRC:
		ref.APIVersion, ref.Kind = "v1", "ReplicationController"
		o.RCs = append(o.RCs, &corev1.ReplicationController{ObjectMeta: meta,
			Spec: corev1.ReplicationControllerSpec{Replicas: replicas, Selector: sel, Template: &tmpl}})
	case OwnerCustom:
		ref.APIVersion, ref.Kind = "example.com/v1", "Foo"
	case OwnerMissing:
	default:
		o.ReplicaSets = append(o.ReplicaSets, &appsv1.ReplicaSet{ObjectMeta: meta,
			Spec: appsv1.ReplicaSetSpec{Replicas: replicas, Selector: &metav1.LabelSelector{MatchLabels: sel}, Template: tmpl}})
	}
	return ref
}

func podSpec(w Workload) corev1.PodSpec {
	res := corev1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceCPU:    *resource.NewMilliQuantity(w.MilliCPU, resource.DecimalSI),
		corev1.ResourceMemory: *resource.NewQuantity(w.MemMi<<20, resource.BinarySI)}}
	if w.GPUs > 0 {
		gpus := *resource.NewQuantity(w.GPUs, resource.DecimalSI)
		res.Requests[ResourceGPU], res.Limits = gpus, corev1.ResourceList{ResourceGPU: gpus}
	}
	return corev1.PodSpec{PriorityClassName: w.PriorityClass, Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10",
		Resources: res}}}
}

// annotationFinished marks a pod the harness's kubelet reports Succeeded.
const annotationFinished = "snapfidelity.kscale.dev/finished"
