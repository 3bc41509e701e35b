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
	// ReplicaSets own the pods of ReplicaSet workloads.
	ReplicaSets []*appsv1.ReplicaSet
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
			rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: w.Namespace, Name: w.Name},
				Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To(int32(len(w.Bound) + w.Pending)), Selector: &metav1.LabelSelector{MatchLabels: sel},
					Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: sel}, Spec: podSpec(w)}}}
			o.ReplicaSets = append(o.ReplicaSets, rs)
			owner = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: w.Name, UID: rsUID(w), Controller: ptr.To(true)}}
		}
		for i := range len(w.Bound) + w.Pending {
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: w.Namespace, Name: fmt.Sprintf("%s-%d", w.Name, i+1),
				Labels: sel, OwnerReferences: owner}, Spec: podSpec(w)}
			if i < len(w.Bound) {
				p.Spec.NodeName = w.Bound[i]
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

// rsUID is a placeholder the harness replaces with the created
// ReplicaSet's UID.
func rsUID(w Workload) types.UID { return types.UID("rs-" + w.Namespace + "-" + w.Name) }

func podSpec(w Workload) corev1.PodSpec {
	return corev1.PodSpec{PriorityClassName: w.PriorityClass, Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10",
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU:    *resource.NewMilliQuantity(w.MilliCPU, resource.DecimalSI),
			corev1.ResourceMemory: *resource.NewQuantity(w.MemMi<<20, resource.BinarySI)}}}}}
}

func typesUID(s string) types.UID { return types.UID(s) }
