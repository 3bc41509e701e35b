package snapfidelity

import (
	"math/rand/v2"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Claims kinds a workload's pods may have: each pod mounts claim
// data-<pod>, as a StatefulSet's claim template makes it.
const (
	// ClaimsLate is a WaitForFirstConsumer class that provisions
	// anywhere: a bound pod's claim is bound to a volume in its node's
	// zone, a pending pod's is unbound (the harness's provisioner makes its
	// volume once kube-scheduler picks a node).
	ClaimsLate = "late"
	// ClaimsLateZ1 is a WaitForFirstConsumer class allowed in zone z1
	// only.
	ClaimsLateZ1 = "late-z1"
	// ClaimsZonal binds every pod's claim to a volume with node affinity
	// to a zone (a pending pod's: ZonesOfPending).
	ClaimsZonal = "zonal"
	// ClaimsImmediate leaves a pending pod's claim unbound in an
	// Immediate class that no volume matches (no PV controller runs).
	ClaimsImmediate = "immediate"
	// ClaimsEphemeral gives bare pods a generic ephemeral volume of the
	// late-binding class: its claim <pod>-data, owned by the pod, is bound
	// to a volume in a running pod's node's zone and unbound for a pending
	// pod (the harness creates the claims as the ephemeral volume
	// controller does, before kube-scheduler sees the pods).
	ClaimsEphemeral = "ephemeral"
)

// gateClaims holds a pending pod with an ephemeral volume back from
// kube-scheduler until the harness created its claim.
const gateClaims = "fid.kscale.dev/claims"

// Storage classes every cluster has (created once by Prepare).
const (
	ClassLate      = "fid-late"
	ClassLateZ1    = "fid-late-z1"
	ClassImmediate = "fid-immediate"
	// Provisioner is the classes' provisioner, which the harness plays.
	Provisioner = "disk.fid.kscale.dev"
	claimVolume = "data"
)

// zones the groups are in; z3 has no group.
var zones = []string{"z1", "z2"}

// StorageClasses are the classes Prepare creates.
func StorageClasses() []*storagev1.StorageClass {
	wffc, imm := storagev1.VolumeBindingWaitForFirstConsumer, storagev1.VolumeBindingImmediate
	z1 := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: ClassLateZ1}, Provisioner: Provisioner, VolumeBindingMode: &wffc,
		AllowedTopologies: []corev1.TopologySelectorTerm{{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{
			{Key: corev1.LabelTopologyZone, Values: []string{"z1"}}}}}}
	return []*storagev1.StorageClass{
		{ObjectMeta: metav1.ObjectMeta{Name: ClassLate}, Provisioner: Provisioner, VolumeBindingMode: &wffc}, z1,
		{ObjectMeta: metav1.ObjectMeta{Name: ClassImmediate}, Provisioner: Provisioner, VolumeBindingMode: &imm},
	}
}

// groupZone draws a group's zone from a stream of its own, so that the
// rest of the seed's cluster stays what it was before groups had zones.
func groupZone(seed int64, group int) string {
	return zones[rand.New(rand.NewPCG(uint64(seed), 0x2a0e+uint64(group))).IntN(len(zones))]
}

// drawClaims gives one bare workload in five an ephemeral volume, and one
// workload in three that a StatefulSet or another controller without a
// running controller owns claims of a random kind, from a stream of its
// own.
func drawClaims(seed int64, i int, w *Workload) {
	r := rand.New(rand.NewPCG(uint64(seed), 0xc1a1+uint64(i)))
	if w.Kind == KindPods && r.IntN(5) == 0 {
		w.Claims = ClaimsEphemeral
		return
	}
	if w.Kind != KindReplicaSet || w.Owner == OwnerReplicaSet || r.IntN(3) != 0 {
		return
	}
	w.Claims = []string{ClaimsLate, ClaimsLateZ1, ClaimsZonal, ClaimsImmediate}[r.IntN(4)]
	for range w.Pending {
		w.ZonesOfPending = append(w.ZonesOfPending, []string{"z1", "z2", "z3"}[r.IntN(3)])
	}
}

// claimClass is the class of a workload's claims.
func claimClass(kind string) string {
	switch kind {
	case ClaimsLateZ1:
		return ClassLateZ1
	case ClaimsImmediate:
		return ClassImmediate
	}
	return ClassLate
}

// addClaims adds the claim of each of the workload's pods (pods[i] is the
// i-th pod, bound to bound[i] when i < len(bound)) and the volumes bound
// ones are bound to, and mounts them.
func (o *Objects) addClaims(w Workload, pods []*corev1.Pod, zoneOf map[string]string) {
	if w.Claims == "" {
		return
	}
	class := claimClass(w.Claims)
	for i, p := range pods {
		spec := corev1.PersistentVolumeClaimSpec{StorageClassName: &class, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}
		pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: claimVolume + "-" + p.Name}, Spec: spec}
		if w.Claims == ClaimsEphemeral {
			pvc.Name = p.Name + "-" + claimVolume
			pvc.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: p.Name, Controller: ptr.To(true)}}
			p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: claimVolume, VolumeSource: corev1.VolumeSource{
				Ephemeral: &corev1.EphemeralVolumeSource{VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{Spec: *spec.DeepCopy()}}}})
			if i >= len(w.Bound) {
				p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: gateClaims}}
			}
			o.EphemeralPVCs = append(o.EphemeralPVCs, pvc)
		} else {
			p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: claimVolume, VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: pvc.Name}}})
			o.PVCs = append(o.PVCs, pvc)
		}
		var affinity *corev1.VolumeNodeAffinity
		switch {
		case i < len(w.Bound):
			affinity = NodeAffinity(zoneOf[w.Bound[i]], w.Bound[i])
		case w.Claims == ClaimsZonal && i-len(w.Bound) < len(w.ZonesOfPending):
			affinity = NodeAffinity(w.ZonesOfPending[i-len(w.Bound)], "")
		default:
			continue // left unbound
		}
		pv := BoundVolume(pvc, "pv-"+p.Namespace+"-"+pvc.Name, affinity)
		if w.Claims == ClaimsEphemeral {
			o.EphemeralPVs = append(o.EphemeralPVs, pv)
		} else {
			o.PVs = append(o.PVs, pv)
		}
	}
}

// NodeAffinity is a volume's node affinity to a zone, or to a host when
// zone is "".
func NodeAffinity(zone, host string) *corev1.VolumeNodeAffinity {
	key, v := corev1.LabelTopologyZone, zone
	if zone == "" {
		key, v = corev1.LabelHostname, host
	}
	return &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
		MatchExpressions: []corev1.NodeSelectorRequirement{{Key: key, Operator: corev1.NodeSelectorOpIn, Values: []string{v}}}}}}}
}

// BoundVolume binds the claim to a new volume of its class and size, as a
// provisioner and the PV controller do (the claim's UID is filled in when
// it is created).
func BoundVolume(pvc *corev1.PersistentVolumeClaim, name string, affinity *corev1.VolumeNodeAffinity) *corev1.PersistentVolume {
	pvc.Spec.VolumeName = name
	if pvc.Annotations == nil {
		pvc.Annotations = map[string]string{}
	}
	pvc.Annotations[annotationBindCompleted] = "yes"
	return &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PersistentVolumeSpec{
		StorageClassName: *pvc.Spec.StorageClassName, Capacity: pvc.Spec.Resources.Requests, AccessModes: pvc.Spec.AccessModes,
		ClaimRef:               &corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: pvc.Namespace, Name: pvc.Name, UID: pvc.UID},
		NodeAffinity:           affinity,
		PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: Provisioner, VolumeHandle: name}}}}
}

// annotationBindCompleted marks a claim whose binding the PV controller
// completed; kube-scheduler counts a claim bound only with it.
const annotationBindCompleted = "pv.kubernetes.io/bind-completed"
