package snapfidelity

import (
	"fmt"
	"maps"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/kscale/kscale/internal/nodeautoscaler/scaledown"
	"github.com/kscale/kscale/internal/scenario"
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
	// Jobs own the pods of Job workloads.
	Jobs []*batchv1.Job
	// DaemonSets own the pods of DaemonSet workloads.
	DaemonSets []*appsv1.DaemonSet
	// PDBs select the pods of one workload each (its MaxUnavailable) or
	// the pods of a cluster's Budgets.
	PDBs []*policyv1.PodDisruptionBudget
	// PVCs are the pods' claims; PVs the volumes bound ones are bound to.
	PVCs []*corev1.PersistentVolumeClaim
	PVs  []*corev1.PersistentVolume
	// EphemeralPVCs are the claims of the pods' ephemeral volumes, owned
	// by their pods (the UID is filled in when the pod is created), and
	// EphemeralPVs the volumes bound ones are bound to.
	EphemeralPVCs []*corev1.PersistentVolumeClaim
	EphemeralPVs  []*corev1.PersistentVolume
}

// ObjectsOf builds the objects of c's workloads.
func ObjectsOf(c *Cluster) Objects {
	var o Objects
	zoneOf := map[string]string{}
	groupZone := map[string]string{}
	for _, g := range c.Groups {
		groupZone[g.Name] = g.Zone
	}
	for _, n := range c.Nodes {
		zoneOf[n.Name] = groupZone[n.Group]
	}
	for _, w := range c.Workloads {
		var pods []*corev1.Pod
		sel := map[string]string{"app": w.Name}
		var owner []metav1.OwnerReference
		switch w.Kind {
		case KindReplicaSet:
			owner = []metav1.OwnerReference{o.addController(w, sel)}
		case KindJob:
			owner = []metav1.OwnerReference{o.addJob(w, sel)}
		case KindDaemonSet:
			owner = []metav1.OwnerReference{o.addDaemonSet(w, sel)}
		}
		for i := range len(w.Bound) + w.Pending {
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: w.Namespace, Name: fmt.Sprintf("%s-%d", w.Name, i+1),
				Labels: podLabelsAt(w, i), Annotations: podAnnotations(w), OwnerReferences: owner}, Spec: podSpec(w)}
			if i < len(w.Bound) {
				p.Spec.NodeName = w.Bound[i]
				if w.Kind == KindDaemonSet {
					p.Spec.Affinity = pinnedTo(w.Bound[i])
				}
			}
			switch {
			case i < w.Finished:
				p.Annotations = withAnnotation(p.Annotations, annotationFinished)
			case i < w.Finished+w.NotReady:
				p.Annotations = withAnnotation(p.Annotations, annotationNotReady)
			}
			o.Pods = append(o.Pods, p)
			pods = append(pods, p)
		}
		o.addClaims(w, pods, zoneOf)
		if w.MaxUnavailable != nil {
			o.PDBs = append(o.PDBs, &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: w.Namespace, Name: w.Name},
				Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: ptr.To(intstr.FromInt32(int32(*w.MaxUnavailable))),
					Selector: &metav1.LabelSelector{MatchLabels: sel}}})
		}
	}
	for _, b := range c.Budgets {
		o.PDBs = append(o.PDBs, b.object())
	}
	return o
}

// addController adds the workload's controller object, when it has one,
// and returns the pods' owner reference; the harness fills in the UID of
// the created object (a missing or custom owner keeps a made-up one).
func (o *Objects) addController(w Workload, sel map[string]string) metav1.OwnerReference {
	replicas := ptr.To(int32(max(0, len(w.Bound)+w.Pending+w.Surplus)))
	meta := metav1.ObjectMeta{Namespace: w.Namespace, Name: w.Name}
	tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: podLabels(w), Annotations: podAnnotations(w)}, Spec: podSpec(w)}
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

// addJob adds the Job object of a Job workload, suspended and with its
// pod count as parallelism, and returns the pods' owner reference.
func (o *Objects) addJob(w Workload, sel map[string]string) metav1.OwnerReference {
	spec := podSpec(w)
	spec.RestartPolicy = corev1.RestartPolicyNever
	o.Jobs = append(o.Jobs, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: w.Namespace, Name: w.Name},
		Spec: batchv1.JobSpec{Parallelism: ptr.To(int32(len(w.Bound) + w.Pending)), Suspend: ptr.To(true),
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: podLabels(w), Annotations: podAnnotations(w)}, Spec: spec}}})
	return metav1.OwnerReference{APIVersion: "batch/v1", Kind: "Job", Name: w.Name, UID: types.UID("uid-" + w.Namespace + "-" + w.Name),
		Controller: ptr.To(true)}
}

// addDaemonSet adds the DaemonSet object of a DaemonSet workload and
// returns the pods' owner reference.
func (o *Objects) addDaemonSet(w Workload, sel map[string]string) metav1.OwnerReference {
	o.DaemonSets = append(o.DaemonSets, &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: w.Namespace, Name: w.Name},
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: sel},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: podLabels(w), Annotations: podAnnotations(w)}, Spec: podSpec(w)}}})
	return metav1.OwnerReference{APIVersion: "apps/v1", Kind: "DaemonSet", Name: w.Name, UID: types.UID("uid-" + w.Namespace + "-" + w.Name),
		Controller: ptr.To(true)}
}

// pinnedTo is the node affinity the DaemonSet controller gives the pod
// it makes for node.
func pinnedTo(node string) *corev1.Affinity {
	return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{
			{Key: metav1.ObjectNameField, Operator: corev1.NodeSelectorOpIn, Values: []string{node}}}}}}}}
}

// podAnnotations lists a safe local volume in the annotation scale-down
// reads.
func podAnnotations(w Workload) map[string]string {
	if w.Volume == "" || !w.SafeVolume {
		return nil
	}
	return map[string]string{scaledown.SafeToEvictLocalVolumesAnnotation: volumeName}
}

// volumeName names a workload's local storage volume.
const volumeName = "scratch"

func podSpec(w Workload) corev1.PodSpec {
	res := corev1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceCPU:    *resource.NewMilliQuantity(w.MilliCPU, resource.DecimalSI),
		corev1.ResourceMemory: *resource.NewQuantity(w.MemMi<<20, resource.BinarySI)}}
	if w.GPUs > 0 {
		gpus := *resource.NewQuantity(w.GPUs, resource.DecimalSI)
		res.Requests[ResourceGPU], res.Limits = gpus, corev1.ResourceList{ResourceGPU: gpus}
	}
	spec := corev1.PodSpec{PriorityClassName: w.PriorityClass, Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10",
		Resources: res}}}
	switch w.Volume {
	case scenario.VolumeEmptyDir:
		spec.Volumes = []corev1.Volume{{Name: volumeName, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	case scenario.VolumeHostPath:
		spec.Volumes = []corev1.Volume{{Name: volumeName, VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/var/lib/" + volumeName}}}}
	}
	return spec
}

// Annotations that tell the harness's kubelet what to report of a pod:
// Succeeded, or Running but not Ready.
const (
	annotationFinished = "snapfidelity.kscale.dev/finished"
	annotationNotReady = "snapfidelity.kscale.dev/not-ready"
)

// withAnnotation returns a copy of annotations with key set to "true".
func withAnnotation(annotations map[string]string, key string) map[string]string {
	out := maps.Clone(annotations)
	if out == nil {
		out = map[string]string{}
	}
	out[key] = "true"
	return out
}
